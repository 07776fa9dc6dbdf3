"""Vantage's ec2instances.info `instances.json` (file-only).

The site's data file (vantage-sh/ec2instances.info; price_sources.md §1.2) is a JSON list of
instance records; a single record object is accepted too. The fields used:

    {"instance_type": "p5.48xlarge", "GPU": 8, "GPU_model": "NVIDIA H100", ...,
     "pricing": {"us-east-1": {"linux": {"ondemand": "55.04", "spot_avg": "...",
                                         "reserved": {"yrTerm1Standard.noUpfront": "...", ...}},
                               "mswin": {...}, ...}, ...}}

For every record with GPU > 0, and every region whose pricing has a "linux" entry:

* on_demand   <- linux.ondemand
* spot        <- linux.spot_avg (the site's average of recent spot prices)
* reserved_1y <- linux.reserved["yrTerm1Standard.noUpfront"]
* reserved_3y <- linux.reserved["yrTerm3Standard.noUpfront"]

All are USD per INSTANCE-hour, written as strings ("26.676"). The reserved figures on the site
are effective hourly rates; the Standard no-upfront term is used because its hourly rate is
the whole cost (no upfront fee to amortise) and it is the term AWS quotes by default.
Convertible and partial/all-upfront terms are ignored. Other operating systems (mswin,
rhel, ...) and "dedicated" are ignored: gpucalc compares Linux shared-tenancy prices.

provider "aws", region = the pricing key ("us-east-1"), instance_type as given,
gpu_name = GPU_model as written (resolved through gpu_alias), gpus_per_instance = GPU.

Two traps (price_sources.md §1.2):
* the site writes "NVIDIA A100" for both p4d (8 x 40 GB) and p4de (8 x 80 GB), and
  "NVIDIA Tesla V100" for p3 (16 GB) and p3dn (32 GB). For those models only, the per-GPU
  memory (GPU_memory is the instance total in GB) is appended: "NVIDIA A100 80GB". Without
  GPU_memory the name stays as written and does not resolve (an unknown_gpu reject, not a guess).
* g6f/gr6f are L4 slices reported as one GPU; the fraction comes from AWS's size table
  (the same one aws_pricelist uses), never from the count.
A record with GPU 0 (most of EC2) yields no rows; a file with no GPU record loads 0 rows.
A price that is missing or empty gives no row; one that is not a positive number is a
Reject naming the record, region and field. source_row is the record's position (1-based).
"""

from __future__ import annotations

import json
import math
from datetime import date

import polars as pl

from sources._aws_pricelist_types import FRACTIONAL
from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec, file_only, file_ref
from sources.contracts import PRICE_QUOTE, conform

NAME = "ec2instances_info"
PROVIDER = "aws"
OS = "linux"
# GPU_model spellings shared by parts with different memory (lowercase).
MEMORY_QUALIFIED = ("nvidia a100", "nvidia tesla v100")
RESERVED_TERMS = {
    "reserved_1y": "yrTerm1Standard.noUpfront",
    "reserved_3y": "yrTerm3Standard.noUpfront",
}


fetch = file_only(NAME)


def _records(payload: Payload) -> list:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({exc})") from exc
    records = [data] if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise SourceError(NAME, f"{payload.url}: expected a list of instance records or one record object")
    if not records:
        raise SourceError(NAME, f"{payload.url}: empty instance list")
    dicts = [r for r in records if isinstance(r, dict)]
    for key in ("instance_type", "GPU", "pricing"):
        if not any(key in r for r in dicts):
            raise SourceError(NAME, f"{payload.url}: field '{key}' missing from every record")
    return records


def _number(value) -> float:
    """A price or count as the file writes it ("26.676" or 8) -> float; ValueError if not > 0."""
    if isinstance(value, bool):
        raise ValueError(value)
    number = float(value.strip()) if isinstance(value, str) else float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError(value)
    return number


def _gpu_count(record: dict) -> tuple[float | None, str | None]:
    """(count, None); (None, None) for a GPU-less record; (None, why) for a bad one."""
    gpus = record.get("GPU")
    if gpus in (0, "0", None, ""):
        return None, None
    try:
        return _number(gpus), None
    except (TypeError, ValueError):
        return None, f"GPU={gpus!r} is not a count"


def _gpu_name(model: str, record: dict, gpus: float) -> str:
    """GPU_model as written; with the per-GPU memory appended where the model alone is ambiguous."""
    model = model.strip()
    if model.lower() not in MEMORY_QUALIFIED:
        return model
    try:
        total = _number(record.get("GPU_memory"))
    except (TypeError, ValueError):
        return model
    return f"{model} {round(total / gpus)}GB"


def _prices(linux: dict) -> dict[str, object]:
    reserved = linux.get("reserved") if isinstance(linux.get("reserved"), dict) else {}
    found = {"on_demand": linux.get("ondemand"), "spot": linux.get("spot_avg")}
    found |= {pricing: reserved.get(term) for pricing, term in RESERVED_TERMS.items()}
    return {k: v for k, v in found.items() if v not in (None, "")}


def parse(payload: Payload, observed_at: date) -> Parsed:
    ref = file_ref(payload)
    rows: list[dict] = []
    rejects: list[Reject] = []
    for i, record in enumerate(_records(payload), start=1):
        if not isinstance(record, dict):
            rejects.append(Reject(NAME, i, "ec2_bad_record", f"record {i} is not an object"))
            continue
        itype = record.get("instance_type")
        where = f"record {i} ({itype})"
        keep = {k: record.get(k) for k in ("instance_type", "GPU", "GPU_model")}
        gpus, problem = _gpu_count(record)
        if problem:
            rejects.append(Reject(NAME, i, "ec2_bad_gpu_count", f"{where}: {problem}", keep))
            continue
        if gpus is None:
            continue  # not a GPU instance
        if not isinstance(itype, str) or not itype.strip():
            rejects.append(Reject(NAME, i, "ec2_missing_instance_type", f"record {i} has no instance_type", keep))
            continue
        model = record.get("GPU_model")
        if not isinstance(model, str) or not model.strip():
            detail = f"{where} has {gpus:g} GPUs but no GPU_model"
            rejects.append(Reject(NAME, i, "ec2_missing_gpu_model", detail, keep))
            continue
        gpu_name = _gpu_name(model, record, gpus)  # memory per GPU the record reports
        gpus = FRACTIONAL.get(itype.strip(), gpus)
        pricing = record.get("pricing")
        regions = {
            region: by_os[OS]
            for region, by_os in (pricing.items() if isinstance(pricing, dict) else [])
            if isinstance(by_os, dict) and isinstance(by_os.get(OS), dict)
        }
        if not regions:
            rejects.append(Reject(NAME, i, "ec2_no_linux_price", f"{where} has no pricing[region]['{OS}'] entry", keep))
            continue
        for region, linux in regions.items():
            for kind, value in _prices(linux).items():
                try:
                    usd = _number(value)
                except (TypeError, ValueError):
                    rejects.append(
                        Reject(NAME, i, "ec2_unparseable_price",
                               f"{where} {region} {kind}: {value!r} is not a positive USD per hour",
                               keep | {"region": region, "pricing": kind, "value": value})
                    )
                    continue
                rows.append(
                    {
                        "provider": PROVIDER,
                        "region": region,
                        "zone": None,
                        "instance_type": itype.strip(),
                        "gpu_name": gpu_name,
                        "gpus_per_instance": gpus,
                        "usd_per_instance_hour": usd,
                        "pricing": kind,
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
    description="ec2instances.info instances.json: AWS GPU instances, Linux on-demand, spot average, 1y/3y reserved",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
    default_provider=PROVIDER,
)
