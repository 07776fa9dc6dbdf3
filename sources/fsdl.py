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

source_row is the data row number (row 1 = the line after the header). Rows are read by
sources.kit.records: a row with the wrong number of fields is `malformed_row`, the last row of a
file without a final newline `possibly_truncated`. gpu_memory_gb is the "(80 GB)" in GPU Type.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date

from sources.kit import records
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.rows import Frame, RowProblem, gpu_count, number, price_row, usd_per_hour
from sources.kit.spec import Parsed, Payload, SourceSpec, file_only, file_ref

NAME = "fsdl"
MAX_BYTES = 256 * 1024  # the 2025-03 table is 15.5 KB (257 rows); 16x head-room
# Spot is read when present; GPU Arch, GPU RAM, vCPUs, RAM and Per-GPU are informational only.
REQUIRED = ("Cloud", "GPU Type", "GPUs", "On-demand", "Name")
NUMBER = re.compile(r"^\$?\s*(\d+(?:\.\d*)?|\.\d+)$")
# "A100 (80 GB)": the table's per-GPU memory. Its `GPU RAM` column is not used: it is sometimes
# the instance total (640 for 8 x 80 GB) and sometimes one card (80 for 4 x A100 80 GB).
MEMORY = re.compile(r"\((\d+(?:\.\d+)?)\s*GB\)", re.IGNORECASE)


fetch = file_only(NAME)


def _records(payload: Payload) -> list[tuple[int, dict, tuple[str, str] | None]]:
    """(data row, cells, problem) per row; rows with every cell empty are spacing, not data."""
    found = records.read(NAME, payload, noun="rows", formats=("csv",), required=REQUIRED, lowercase=False,
                         kind="csv")
    return [(r.number, r.value, r.problem) for r in found
            if r.problem or any(isinstance(v, str) and v for v in r.value.values())]


def _price(text: str | None, what: str) -> float | None:
    """A price cell -> float; None when empty; RowProblem when it is not a positive number."""
    if not text:
        return None
    match = NUMBER.match(text.replace(",", ""))
    value = number(match[1], what) if match else None
    if value is None or value <= 0:
        raise RowProblem(
            "fsdl_unparseable_price", f"has {what}={text!r}, not a positive number of USD per instance-hour"
        )
    return usd_per_hour(value, what)


def _gpus(text: str | None) -> float:
    try:
        value = number(text, "GPUs")
    except RowProblem:
        value = None
    if value is None or value <= 0:
        raise RowProblem("fsdl_bad_gpu_count", f"has GPUs={text!r}, not a positive number")
    return gpu_count(value, "GPUs")


def provider_id(cloud: str) -> str:
    return re.sub(r"\s+", "-", cloud.strip().lower())


def _check(r: dict) -> tuple[float, dict[str, float | None]]:
    """(GPUs, {pricing: USD per instance-hour or None}) for a usable row; RowProblem otherwise."""
    if not r.get("Cloud"):
        raise RowProblem("fsdl_missing_cloud", "has no Cloud")
    if not r.get("GPU Type"):
        raise RowProblem("fsdl_missing_gpu_type", "has no GPU Type")
    gpus = _gpus(r.get("GPUs"))
    prices = {pricing: _price(r.get(column), column) for column, pricing in (("On-demand", "on_demand"),
                                                                            ("Spot", "spot"))}
    if prices["on_demand"] is None and prices["spot"] is None:
        raise RowProblem(
            "fsdl_no_price",
            f"has neither an On-demand nor a Spot price (Per-GPU={r.get('Per-GPU')!r} is ambiguous "
            "without the instance price, so it is not used)",
        )
    return gpus, prices


def _instance_types(rows: list[dict]) -> list[str]:
    """Name, or a made-up name; a Name one provider reuses for different GPUs gets them appended."""
    configs: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for r in rows:
        if r.get("Name"):
            configs[(provider_id(r.get("Cloud") or ""), r["Name"])].add((r.get("GPU Type") or "", r.get("GPUs") or ""))
    names = []
    for r in rows:
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


def _where(i: int, r: dict) -> str:
    return f"row {i} ({r.get('Cloud') or '?'} {r.get('Name') or r.get('GPU Type') or '?'})"


def parse(payload: Payload, observed_at: date) -> Parsed:
    rows = _records(payload)  # a hand-curated table of a few hundred rows: held whole for the names
    ref = file_ref(payload)
    rejects = records.Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    names = _instance_types([r for _, r, _ in rows])
    for (i, r, problem), instance_type in zip(rows, names, strict=True):
        with rejects.guard(i, r, _where(i, r)):
            if problem:
                raise RowProblem(*problem)
            gpus, prices = _check(r)
            memory = MEMORY.search(r["GPU Type"])
            for pricing, usd in prices.items():
                if usd is not None:
                    frame.add(price_row(
                        provider=provider_id(r["Cloud"]), region="global", zone=None, instance_type=instance_type,
                        gpu_name=r["GPU Type"], gpus_per_instance=gpus, usd_per_instance_hour=usd,
                        pricing=pricing, observed_at=observed_at, source=NAME, source_ref=ref, source_row=i,
                        gpu_memory_gb=float(memory[1]) if memory else None,
                    ))
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Full Stack Deep Learning cloud-gpus.csv (hand-curated, 2025-03): on-demand and spot per instance",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
    max_bytes=MAX_BYTES,
)
