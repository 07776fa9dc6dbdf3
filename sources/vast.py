"""Vast.ai marketplace: live asks from the `bundles` offer search (keyless).

Vast is a marketplace, so one "price" is a statistic over many host offers. Offers are
grouped by (gpu_name, num_gpus, GPU memory) and each group becomes up to three rows:

* on_demand, instance_type "<n>x <gpu> <mem>GB median"  - median ask (`dph_total`)
* on_demand, instance_type "<n>x <gpu> <mem>GB lowest"  - the cheapest ask
* spot,      instance_type "<n>x <gpu> <mem>GB median"  - median interruptible floor

The statistic lives in `instance_type` (the price key has no other place for it) and in
`price_statistic` (median / lowest; auction_floor for the min_bid rows); gpu_memory_gb is the
class's largest `gpu_ram` (MB, per GPU) / 1024. The offer count lives in `source_ref`, so the
key stays stable while the count moves daily.
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

One bad offer is one reject (a dph_total of 1e308 once overflowed and refused the whole
file); helper figures that are not real numbers (gpu_ram, dph_base, min_bid) count as absent.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from datetime import date

import requests

from sources.kit.contracts import PRICE_QUOTE
from sources.kit.http import get_bytes
from sources.kit.records import Rejects
from sources.kit.rows import (
    MAX_GPU_MEMORY_GB,
    MAX_GPUS,
    MAX_USD_PER_HOUR,
    Frame,
    RowProblem,
    finite,
    json_number,
    price_row,
    shown,
    usd_per_hour,
)
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec

NAME = "vast"
PROVIDER = "vast"
URL = "https://console.vast.ai/api/v0/bundles/"
MAX_BYTES = 16 * 1024 * 1024  # 3000 offers (the query's limit) are ~4.5 MB of JSON
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
    body = get_bytes(session, NAME, URL, method="POST", json=query(), max_bytes=MAX_BYTES)
    return [Payload(source=NAME, name="bundles.json", body=body, url=URL, provider=PROVIDER)]


def _offers(payload: Payload) -> list:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({shown(str(exc), 120)})") from None
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


def _optional(offer: dict, key: str, upper: float) -> float | None:
    """A helper figure (memory, base price, bid, storage cost): unknown unless a real number in [0, upper]."""
    value = json_number(offer.get(key))
    return value if value is not None and 0 <= value <= upper else None


def _check(offer) -> Offer:
    """One offer's usable figures; RowProblem if it cannot be priced."""
    if not isinstance(offer, dict):
        raise RowProblem("vast_bad_offer", "is not an object")
    if not isinstance(offer.get("gpu_name"), str) or not offer["gpu_name"].strip():
        raise RowProblem("vast_missing_gpu_name", "has no gpu_name")
    n = offer.get("num_gpus")
    if isinstance(n, bool) or not isinstance(n, int | float) or not n >= 1 or n != int(n):
        raise RowProblem("vast_bad_num_gpus", f"has num_gpus={shown(n)}")
    if n > MAX_GPUS:
        raise RowProblem("implausible_value", f"has num_gpus={shown(n)}, above {MAX_GPUS}")
    price = offer.get("dph_total")
    if isinstance(price, bool) or not isinstance(price, int | float) or not price > 0:
        raise RowProblem("vast_bad_price", f"has dph_total={shown(price)}")
    usd_per_hour(finite(float(price) if price < 1e300 else math.inf, "dph_total"), "dph_total")
    if offer.get("rentable") is False or offer.get("rented") is True:
        raise RowProblem("vast_not_rentable", "is not rentable")
    if offer.get("verification", "verified") != "verified":
        raise RowProblem("vast_unverified", f"is {shown(offer.get('verification'))}")
    return Offer(
        gpu=offer["gpu_name"], gpus=int(n), ask=float(price),
        ram_mb=_optional(offer, "gpu_ram", MAX_GPU_MEMORY_GB * 1024),
        base=_optional(offer, "dph_base", float(price)), bid=_optional(offer, "min_bid", MAX_USD_PER_HOUR),
        storage_cost=_optional(offer, "storage_cost", MAX_USD_PER_HOUR),
    )


@dataclass(frozen=True, slots=True)
class Offer:
    gpu: str
    gpus: int
    ask: float  # dph_total: the whole offer per hour, incl. DISK_GB of storage
    ram_mb: float | None  # per GPU
    base: float | None  # dph_base: the same without storage
    bid: float | None  # min_bid: the interruptible floor, without storage
    storage_cost: float | None  # USD per GB-month

    def spot(self) -> float:
        # min_bid excludes storage; add the storage share dph_total carries (dph_total - dph_base).
        storage = self.ask - (self.base if self.base is not None else self.ask)
        return self.bid + max(0.0, storage)


def _split_by_memory(members: list[tuple[int, Offer]]) -> list[list[tuple[int, Offer]]]:
    """Split one (gpu_name, num_gpus) group into memory classes.

    "A100 SXM4" offers report 39936 or 40960 MB for the 40 GB card and 81920 for the 80 GB
    one; a new class starts when memory jumps by more than 15 %, which keeps rounding noise
    together without a table of nominal sizes.
    """
    ordered = sorted(members, key=lambda m: m[1].ram_mb or 0.0)
    classes: list[list[tuple[int, Offer]]] = []
    floor = None
    for member in ordered:
        ram = member[1].ram_mb or 0.0
        if floor is None or ram > floor * 1.15:
            classes.append([])
            floor = ram
        classes[-1].append(member)
    return classes


def _disk_note(offers: list[Offer]) -> str:
    """Disk priced into dph_total, read back from the offers themselves.

    storage_cost is USD per GB-month, so GB = (dph_total - dph_base) * 30 * 24 / storage_cost.
    The payload, not our query, is the authority: a replayed CLI dump was priced for 5 GB.
    """
    sizes = set()
    for o in offers:
        if o.base is not None and o.storage_cost:
            gb = (o.ask - o.base) * 30 * 24 / o.storage_cost
            sizes.add(round(gb) if math.isfinite(gb) and abs(gb) < 1e12 else -1)
    return f"incl. {sizes.pop()} GB disk" if len(sizes) == 1 and -1 not in sizes else "incl. disk as priced per offer"


def _group_rows(gpu: str, n: int, members: list[tuple[int, Offer]]) -> list[dict]:
    rams = [o.ram_mb for _, o in members if o.ram_mb]
    memory = max(rams) / 1024 if rams else None
    label = f"{n}x {gpu}" + (f" {round(memory)}GB" if memory else "")
    count = f"{len(members)} offer{'' if len(members) == 1 else 's'}"
    disk = _disk_note([o for _, o in members])
    asks = [o.ask for _, o in members]
    cheapest_row, cheapest = min(((i, o.ask) for i, o in members), key=lambda t: t[1])
    bids = [o.spot() for _, o in members if o.bid]
    base = {"gpu_name": gpu, "gpus_per_instance": float(n), "source_row": members[0][0], "gpu_memory_gb": memory}
    rows = [
        base | {"instance_type": f"{label} median", "pricing": "on_demand", "price_statistic": "median",
                "usd_per_instance_hour": statistics.median(asks), "ref": f"median dph_total of {count}, {disk}"},
        base | {"instance_type": f"{label} lowest", "pricing": "on_demand", "price_statistic": "lowest",
                "usd_per_instance_hour": cheapest, "source_row": cheapest_row,
                "ref": f"lowest dph_total of {count}, {disk}"},
    ]
    if bids:
        rows.append(base | {
            "instance_type": f"{label} median", "pricing": "spot", "price_statistic": "auction_floor",
            "usd_per_instance_hour": statistics.median(bids),
            "ref": f"median min_bid + storage of {len(bids)} of {count}",
        })
    return rows


def parse(payload: Payload, observed_at: date) -> Parsed:
    offers = _offers(payload)
    rejects = Rejects(NAME)
    groups: dict[tuple[str, int], list[tuple[int, Offer]]] = {}
    for i, offer in enumerate(offers, start=1):
        # keep the pricing fields only: offers also carry host IP addresses
        row = {k: offer.get(k) for k in KEEP} if isinstance(offer, dict) else offer
        ident = offer.get("id") if isinstance(offer, dict) else None
        with rejects.guard(i, row, f"offer {i} (id {shown(ident, 30)})"):
            good = _check(offer)
            groups.setdefault((good.gpu, good.gpus), []).append((i, good))

    frame = Frame(PRICE_QUOTE, NAME)
    for (gpu, n), members in sorted(groups.items()):
        for memory_class in _split_by_memory(members):
            for r in _group_rows(gpu, n, memory_class):
                with rejects.guard(r["source_row"], {}, f"offer group {r['instance_type']}"):
                    frame.add(price_row(
                        provider=PROVIDER, region="global", zone=None, instance_type=r["instance_type"],
                        gpu_name=gpu, gpus_per_instance=r["gpus_per_instance"],
                        usd_per_instance_hour=r["usd_per_instance_hour"], pricing=r["pricing"],
                        observed_at=observed_at, source=NAME, source_ref=f"{payload.url} ({r['ref']})",
                        source_row=r["source_row"], gpu_memory_gb=r["gpu_memory_gb"],
                        price_statistic=r["price_statistic"],
                    ))
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Vast.ai marketplace asks: median/lowest on-demand and median interruptible "
    f"per GPU shape (whole-offer prices incl. {DISK_GB} GB disk)",
    key_env=None,
    fetch=fetch,
    parse=parse,
    default_provider=PROVIDER,
    max_bytes=MAX_BYTES,
)
