"""Full Stack Deep Learning's hand-curated `cloud-gpus.csv` (file-only).

The table behind https://fullstackdeeplearning.com/cloud-gpus/ (the-full-stack/website,
`docs/cloud-gpus/cloud-gpus.csv`, MIT; last edited 2025-03; price_sources.md §1.12):

    Cloud,GPU Type,GPU Arch,GPUs,GPU RAM,vCPUs,RAM,On-demand,Per-GPU,Spot,Name
    AWS,A100 (80 GB),Ampere,8,640,96,1152,40.97,5.12,,p4de.24xlarge

Columns are read by name, so their order may change; a missing required column is a
SourceError naming it. Each usable row becomes up to two rows, region "global" (the table
gives one price per offer, not per region):

* on_demand from `On-demand`, which is the price of the WHOLE instance (`GPUs` GPUs);
* spot from `Spot` (also per instance) when it is filled in.

`Per-GPU` is not used: it is `On-demand / GPUs` where both are given, and where `On-demand`
is empty (Exoscale 3080Ti/A5000 rows) it is not clear whether it is per GPU or per instance
(the 2-GPU value is ~1.85x the 1-GPU one), so such a row is rejected rather than guessed.

provider = `Cloud` lowercased with spaces as '-' ("Oracle Cloud" -> "oracle-cloud").
gpu_name = `GPU Type` as written ("A100 (80 GB)"); resolved later through gpu_alias.
instance_type = `Name`; when `Name` is empty (Cudo, FluidStack, RunPod, ...), a made-up
"<GPUs>x <GPU Type>, <vCPUs> vCPU, <RAM> GB RAM" ("1x A4000 (16 GB), 2 vCPU, 4 GB RAM"): the
host shape is part of it because those providers list one GPU count with several shapes.
GCP lists its n1 hosts once per attached GPU, so when one provider uses the same `Name` for
rows with different GPU Type or count, the GPUs are appended ("n1-highmem-16 + 2x T4
(16 GB)") to keep those offers apart. Exact repeats (AWS g4dn.4xlarge is listed three times)
and unnamed rows with the same shape but different prices (Cudo lists some twice, likely two
data centres) are left for the warehouse's duplicate_key rule: the first is kept. Ranges
such as "20-26" occur in vCPUs/RAM; they only ever appear inside a made-up name.

source_row is the data row number (row 1 = the line after the header).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import defaultdict
from datetime import date

import polars as pl

from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec, file_only, file_ref
from sources.contracts import PRICE_QUOTE, conform

NAME = "fsdl"
REQUIRED = ("Cloud", "GPU Type", "GPUs", "On-demand", "Name")
OPTIONAL = ("Spot",)  # GPU Arch, GPU RAM, vCPUs, RAM, Per-GPU are informational only
NUMBER = re.compile(r"^\$?\s*(\d+(?:\.\d*)?|\.\d+)$")


fetch = file_only(NAME)


def _records(payload: Payload) -> list[dict]:
    try:
        text = payload.body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(NAME, f"{payload.url}: not UTF-8 text ({exc})") from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    if not header:
        raise SourceError(NAME, f"{payload.url}: empty file (no header line)")
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise SourceError(
            NAME, f"{payload.url}: required column(s) {', '.join(repr(c) for c in missing)} missing from header"
        )
    records = [
        {k.strip(): (v.strip() if isinstance(v, str) else v) for k, v in row.items() if k is not None}
        for row in reader
    ]
    records = [r for r in records if any(v for v in r.values() if isinstance(v, str))]
    if not records:
        raise SourceError(NAME, f"{payload.url}: header but no rows")
    return records


def _price(text: str | None) -> float | None:
    """A price cell -> float; None when empty; ValueError when it is not a positive number."""
    if not text:
        return None
    match = NUMBER.match(text.replace(",", ""))
    if not match:
        raise ValueError(text)
    value = float(match[1])
    if not math.isfinite(value) or value <= 0:
        raise ValueError(text)
    return value


def _gpus(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def provider_id(cloud: str) -> str:
    return re.sub(r"\s+", "-", cloud.strip().lower())


def _check(i: int, r: dict) -> tuple[dict | None, tuple[str, str] | None]:
    """(fields, None) for a usable row, or (None, (rule, detail))."""
    where = f"row {i} ({r.get('Cloud') or '?'} {r.get('Name') or r.get('GPU Type') or '?'})"
    if not r.get("Cloud"):
        return None, ("fsdl_missing_cloud", f"row {i} has no Cloud")
    if not r.get("GPU Type"):
        return None, ("fsdl_missing_gpu_type", f"{where} has no GPU Type")
    gpus = _gpus(r.get("GPUs"))
    if gpus is None:
        return None, ("fsdl_bad_gpu_count", f"{where} has GPUs={r.get('GPUs')!r}, not a positive number")
    prices = {}
    for column, pricing in (("On-demand", "on_demand"), ("Spot", "spot")):
        try:
            prices[pricing] = _price(r.get(column))
        except ValueError:
            return None, (
                "fsdl_unparseable_price",
                f"{where} has {column}={r.get(column)!r}, not a positive number of USD per instance-hour",
            )
    if prices["on_demand"] is None and prices["spot"] is None:
        return None, (
            "fsdl_no_price",
            f"{where} has neither an On-demand nor a Spot price (Per-GPU={r.get('Per-GPU')!r} is ambiguous "
            "without the instance price, so it is not used)",
        )
    return {"gpus": gpus, "prices": prices}, None


def _instance_types(records: list[dict]) -> list[str]:
    """Name, or a made-up name; a Name one provider reuses for different GPUs gets them appended."""
    configs: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for r in records:
        if r.get("Name"):
            configs[(provider_id(r.get("Cloud") or ""), r["Name"])].add((r.get("GPU Type") or "", r.get("GPUs") or ""))
    names = []
    for r in records:
        gpus = f"{r.get('GPUs') or '?'}x {r.get('GPU Type') or '?'}"
        name = r.get("Name")
        if not name:
            shape = [f"{r[c]} {unit}" for c, unit in (("vCPUs", "vCPU"), ("RAM", "GB RAM")) if r.get(c)]
            names.append(", ".join([gpus, *shape]))
        elif len(configs[(provider_id(r.get("Cloud") or ""), name)]) > 1:
            names.append(f"{name} + {gpus}")
        else:
            names.append(name)
    return names


def parse(payload: Payload, observed_at: date) -> Parsed:
    records = _records(payload)
    ref = file_ref(payload)
    rows: list[dict] = []
    rejects: list[Reject] = []
    for i, (r, instance_type) in enumerate(zip(records, _instance_types(records), strict=True), start=1):
        fields, problem = _check(i, r)
        if problem:
            rejects.append(Reject(NAME, i, problem[0], problem[1], r))
            continue
        for pricing, usd in fields["prices"].items():
            if usd is None:
                continue
            rows.append(
                {
                    "provider": provider_id(r["Cloud"]),
                    "region": "global",
                    "zone": None,
                    "instance_type": instance_type,
                    "gpu_name": r["GPU Type"],
                    "gpus_per_instance": fields["gpus"],
                    "usd_per_instance_hour": usd,
                    "pricing": pricing,
                    "currency": "USD",
                    "observed_at": observed_at,
                    "source": NAME,
                    "source_ref": ref,
                    "source_row": i,
                }
            )
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return Parsed(conform(frame, PRICE_QUOTE), rejects)


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Full Stack Deep Learning cloud-gpus.csv (hand-curated, 2025-03): on-demand and spot per instance",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
)
