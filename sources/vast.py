"""Vast.ai marketplace: live asks from the `bundles` offer search (keyless).

Vast is a marketplace, so one "price" is a statistic over many host offers. Offers are
grouped by (gpu_name, num_gpus, GPU memory) and each group becomes up to three rows:

* on_demand, instance_type "<n>x <gpu> <mem>GB median"  - median ask (`dph_total`)
* on_demand, instance_type "<n>x <gpu> <mem>GB lowest"  - the cheapest ask
* spot,      instance_type "<n>x <gpu> <mem>GB median"  - median interruptible floor

The statistic lives in `instance_type` (the price key has no other place for it); the
offer count lives in `source_ref`, so the key stays stable while the count moves daily.
Region is "global": one median per GPU shape is more useful than thin per-country medians
(`geolocation` is free text such as "Alberta, CA").

Traps handled (price_sources.md §1.4):
* `dph_total` is for the WHOLE offer (all `num_gpus`), so it is already per instance-hour.
* `gpu_frac` < 1 means the offer is a slice of a bigger host (0.125 = 1 of its 8 GPUs);
  the offer still holds `num_gpus` whole GPUs, so gpus_per_instance = num_gpus.
* `gpu_ram` is in MB; "A100 SXM4" covers 40 and 80 GB cards, so memory is part of the group.
* `dph_total` includes storage for the disk we ask for (DISK_GB); `min_bid` does not, so the
  spot figure adds the same storage share (dph_total - dph_base) to stay comparable
  (the gap reported in dstackai/gpuhunt PR #242).
* `min_bid` of 0 means "no interruptible price", not a free GPU.
"""

from __future__ import annotations

import json
import statistics
from datetime import date

import polars as pl
import requests

from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec
from sources.contracts import PRICE_QUOTE, conform
from sources.http import get_bytes

NAME = "vast"
PROVIDER = "vast"
URL = "https://console.vast.ai/api/v0/bundles/"
DISK_GB = 50  # disk priced into dph_total; small enough not to dominate a 1-GPU ask
# Vast's own spellings (gpuhunt vastai.py mapping; RTX PRO 6000 / B200 as seen in offers).
GPU_NAMES = (
    "B200",
    "H200",
    "H200 NVL",
    "H100 SXM",
    "H100 PCIE",
    "H100 NVL",
    "A100 SXM4",
    "A100 PCIE",
    "L40S",
    "L40",
    "A40",
    "RTX PRO 6000 WS",
    "RTX PRO 6000 S",
    "RTX 6000Ada",
    "RTX A6000",
    "RTX 5090",
    "RTX 4090",
)
REQUIRED = ("gpu_name", "num_gpus", "dph_total")
KEEP = (
    "id",
    "gpu_name",
    "num_gpus",
    "gpu_ram",
    "gpu_frac",
    "dph_base",
    "dph_total",
    "min_bid",
    "verification",
    "rentable",
    "rented",
    "geolocation",
)


def query() -> dict:
    """The bundles filter: rentable, verified, not rented, our GPUs, priced with DISK_GB."""
    return {
        "rentable": {"eq": True},
        "rented": {"eq": False},
        "verified": {"eq": True},
        "external": {"eq": False},
        "num_gpus": {"gte": 1},
        "gpu_name": {"in": list(GPU_NAMES)},
        "type": "on-demand",
        "allocated_storage": DISK_GB,
        "order": [["dph_total", "asc"]],
        "limit": 3000,
    }


def fetch(session: requests.Session, observed_at: date) -> list[Payload]:
    body = get_bytes(session, NAME, URL, method="POST", json=query())
    return [Payload(source=NAME, name="bundles.json", body=body, url=URL, provider=PROVIDER)]


def _offers(payload: Payload) -> list:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({exc})") from exc
    # The API wraps offers in {"offers": [...]}; a saved bare list (e.g. a CLI --raw dump)
    # is accepted too so recorded responses can be replayed.
    offers = data.get("offers") if isinstance(data, dict) else data
    if not isinstance(offers, list):
        raise SourceError(NAME, f"{payload.url}: no 'offers' list in response")
    if not offers:
        raise SourceError(NAME, f"{payload.url}: empty offer list")
    dicts = [o for o in offers if isinstance(o, dict)]
    for key in REQUIRED:
        if not any(key in o for o in dicts):
            raise SourceError(NAME, f"{payload.url}: field '{key}' missing from every offer")
    return offers


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _check(i: int, offer) -> tuple[str, str] | None:
    """Return (rule, detail) if offer #i cannot be used, else None."""
    if not isinstance(offer, dict):
        return "vast_bad_offer", f"offer {i} is not an object"
    where = f"offer {i} (id {offer.get('id')})"
    if not isinstance(offer.get("gpu_name"), str) or not offer["gpu_name"].strip():
        return "vast_missing_gpu_name", f"{where} has no gpu_name"
    n = _number(offer.get("num_gpus"))
    if n is None or n < 1 or n != int(n):
        return "vast_bad_num_gpus", f"{where} has num_gpus={offer.get('num_gpus')!r}"
    price = _number(offer.get("dph_total"))
    if price is None or price <= 0:
        return "vast_bad_price", f"{where} has dph_total={offer.get('dph_total')!r}"
    if offer.get("rentable") is False or offer.get("rented") is True:
        return "vast_not_rentable", f"{where} is not rentable"
    if offer.get("verification", "verified") != "verified":
        return "vast_unverified", f"{where} is {offer.get('verification')!r}"
    return None


def _split_by_memory(members: list[tuple[int, dict]]) -> list[list[tuple[int, dict]]]:
    """Split one (gpu_name, num_gpus) group into memory classes.

    "A100 SXM4" offers report 39936 or 40960 MB for the 40 GB card and 81920 for the 80 GB
    one; a new class starts when memory jumps by more than 15 %, which keeps rounding noise
    together without a table of nominal sizes.
    """
    ordered = sorted(members, key=lambda m: _number(m[1].get("gpu_ram")) or 0.0)
    classes: list[list[tuple[int, dict]]] = []
    floor = None
    for member in ordered:
        ram = _number(member[1].get("gpu_ram")) or 0.0
        if floor is None or ram > floor * 1.15:
            classes.append([])
            floor = ram
        classes[-1].append(member)
    return classes


def _spot(offer: dict) -> float:
    # min_bid excludes storage; add the storage share dph_total carries (dph_total - dph_base).
    storage = float(offer["dph_total"]) - (_number(offer.get("dph_base")) or float(offer["dph_total"]))
    return float(offer["min_bid"]) + max(0.0, storage)


def _disk_note(offers: list[dict]) -> str:
    """Disk priced into dph_total, read back from the offers themselves.

    storage_cost is USD per GB-month, so GB = (dph_total - dph_base) * 30 * 24 / storage_cost.
    The payload, not our query, is the authority: a replayed CLI dump was priced for 5 GB.
    """
    sizes = set()
    for o in offers:
        base, cost = _number(o.get("dph_base")), _number(o.get("storage_cost"))
        if base is not None and cost:
            sizes.add(round((float(o["dph_total"]) - base) * 30 * 24 / cost))
    return f"incl. {sizes.pop()} GB disk" if len(sizes) == 1 else "incl. disk as priced per offer"


def _group_rows(gpu: str, n: int, members: list[tuple[int, dict]]) -> list[dict]:
    rams = [_number(o.get("gpu_ram")) for _, o in members]
    rams = [r for r in rams if r]
    label = f"{n}x {gpu}" + (f" {round(max(rams) / 1024)}GB" if rams else "")
    count = f"{len(members)} offer{'' if len(members) == 1 else 's'}"
    disk = _disk_note([o for _, o in members])
    asks = [float(o["dph_total"]) for _, o in members]
    cheapest_row, cheapest = min(((i, float(o["dph_total"])) for i, o in members), key=lambda t: t[1])
    bids = [_spot(o) for _, o in members if (_number(o.get("min_bid")) or 0) > 0]
    base = {"gpu_name": gpu, "gpus_per_instance": float(n), "source_row": members[0][0]}
    rows = [
        base
        | {
            "instance_type": f"{label} median",
            "pricing": "on_demand",
            "usd_per_instance_hour": statistics.median(asks),
            "ref": f"median dph_total of {count}, {disk}",
        },
        base
        | {
            "instance_type": f"{label} lowest",
            "pricing": "on_demand",
            "usd_per_instance_hour": cheapest,
            "source_row": cheapest_row,
            "ref": f"lowest dph_total of {count}, {disk}",
        },
    ]
    if bids:
        rows.append(
            base
            | {
                "instance_type": f"{label} median",
                "pricing": "spot",
                "usd_per_instance_hour": statistics.median(bids),
                "ref": f"median min_bid + storage of {len(bids)} of {count}",
            }
        )
    return rows


def parse(payload: Payload, observed_at: date) -> Parsed:
    offers = _offers(payload)
    rejects: list[Reject] = []
    groups: dict[tuple[str, int], list[tuple[int, dict]]] = {}
    for i, offer in enumerate(offers, start=1):
        problem = _check(i, offer)
        if problem:
            # keep the pricing fields only: offers also carry host IP addresses
            row = {k: offer.get(k) for k in KEEP} if isinstance(offer, dict) else {"value": repr(offer)}
            rejects.append(Reject(NAME, i, problem[0], problem[1], row))
            continue
        groups.setdefault((offer["gpu_name"], int(offer["num_gpus"])), []).append((i, offer))

    rows = []
    for (gpu, n), members in sorted(groups.items()):
        for memory_class in _split_by_memory(members):
            rows.extend(_group_rows(gpu, n, memory_class))
    frame = pl.DataFrame(
        [
            {k: v for k, v in r.items() if k != "ref"}
            | {
                "provider": PROVIDER,
                "region": "global",
                "zone": None,
                "currency": "USD",
                "observed_at": observed_at,
                "source": NAME,
                "source_ref": f"{payload.url} ({r['ref']})",
            }
            for r in rows
        ],
        infer_schema_length=None,
    )
    return Parsed(conform(frame, PRICE_QUOTE), rejects)


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Vast.ai marketplace asks: median/lowest on-demand and median interruptible "
    f"per GPU shape (whole-offer prices incl. {DISK_GB} GB disk)",
    key_env=None,
    fetch=fetch,
    parse=parse,
    default_provider=PROVIDER,
)
