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
gpu_memory_gb = GPU_memory / GPUs (after the slice fraction: 3 GB / 0.125 = 24 GB for g6f.large).
A record with GPU 0 (most of EC2) yields no rows; a file with no GPU record loads 0 rows.
A price that is missing or empty gives no row; one that is not a positive number is a
Reject naming the record, region and field. source_row is the record's position (1-based).
Records are decoded one at a time (sources.kit.records.json_items): the whole file is ~200 MB.
"""

from __future__ import annotations

from datetime import date

from sources.aws_pricelist.families import FRACTIONAL
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.records import Rejects, json_items
from sources.kit.rows import Frame, RowProblem, gpu_count, number, price_row, shown
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec, file_only, file_ref

NAME = "ec2instances_info"
PROVIDER = "aws"
OS = "linux"
# The whole instances.json is ~1,000 records of ~200 KB each (the one real record kept in
# shared/data/prices is 210 KB), ~200 MB; records are decoded one at a time, so memory stays
# at one record whatever the size.
MAX_BYTES = 384 * 1024 * 1024
# GPU_model spellings shared by parts with different memory (lowercase).
MEMORY_QUALIFIED = ("nvidia a100", "nvidia tesla v100")
RESERVED_TERMS = {
    "reserved_1y": "yrTerm1Standard.noUpfront",
    "reserved_3y": "yrTerm3Standard.noUpfront",
}
FIELDS = ("instance_type", "GPU", "pricing")


fetch = file_only(NAME)


def _positive(value: object, what: str) -> float:
    """A price or count as the file writes it ("26.676" or 8) -> float; RowProblem if not > 0."""
    result = number(value, what)
    if result is None or result <= 0:
        raise RowProblem("not_a_number", f"{what}={shown(value)} is not a positive number")
    return result


def _gpu_count(record: dict) -> float | None:
    """The count; None for a GPU-less record; RowProblem for a bad one."""
    gpus = record.get("GPU")
    if gpus in (0, "0", None, ""):
        return None
    try:
        return gpu_count(_positive(gpus, "GPU"), "GPU")
    except RowProblem as exc:
        rule = exc.rule if exc.rule in ("implausible_value", "non_finite_value", "wrong_type") else "ec2_bad_gpu_count"
        raise RowProblem(rule, f"GPU={shown(gpus)} is not a count") from None


def _memory_gb(record: dict, gpus: float) -> float | None:
    """Per-GPU memory: GPU_memory is the instance total in GB (3 for a g6f.large eighth of an L4)."""
    try:
        return _positive(record.get("GPU_memory"), "GPU_memory") / gpus
    except RowProblem:
        return None


def _gpu_name(model: str, memory: float | None) -> str:
    """GPU_model as written; with the per-GPU memory appended where the model alone is ambiguous."""
    model = model.strip()
    if model.lower() not in MEMORY_QUALIFIED or memory is None:
        return model
    return f"{model} {round(memory)}GB"


def _prices(linux: dict) -> dict[str, object]:
    reserved = linux.get("reserved") if isinstance(linux.get("reserved"), dict) else {}
    found = {"on_demand": linux.get("ondemand"), "spot": linux.get("spot_avg")}
    found |= {pricing: reserved.get(term) for pricing, term in RESERVED_TERMS.items()}
    return {k: v for k, v in found.items() if v not in (None, "")}


def _record_rows(i: int, record, ref: str, observed_at: date, frame: Frame, rejects: Rejects) -> None:
    if not isinstance(record, dict):
        raise RowProblem("ec2_bad_record", "is not an object")
    itype = record.get("instance_type")
    gpus = _gpu_count(record)
    if gpus is None:
        return  # not a GPU instance
    if not isinstance(itype, str) or not itype.strip():
        raise RowProblem("ec2_missing_instance_type", "has no instance_type")
    model = record.get("GPU_model")
    if not isinstance(model, str) or not model.strip():
        raise RowProblem("ec2_missing_gpu_model", f"has {gpus:g} GPUs but no GPU_model")
    itype = itype.strip()
    gpus = FRACTIONAL.get(itype, gpus)  # AWS reports one GPU for an L4 slice; the size table wins
    memory = _memory_gb(record, gpus)
    gpu_name = _gpu_name(model, memory)
    pricing = record.get("pricing")
    regions = {
        region: by_os[OS]
        for region, by_os in (pricing.items() if isinstance(pricing, dict) else [])
        if isinstance(by_os, dict) and isinstance(by_os.get(OS), dict)
    }
    if not regions:
        raise RowProblem("ec2_no_linux_price", f"has no pricing[region]['{OS}'] entry")
    keep = {k: record.get(k) for k in ("instance_type", "GPU", "GPU_model")}
    for region, linux in regions.items():
        for kind, value in _prices(linux).items():
            where = f"record {i} ({itype}) {region[:40]} {kind}:"
            with rejects.guard(i, keep | {"region": region, "pricing": kind, "value": value}, where):
                try:
                    usd = _positive(value, "price")
                except RowProblem as exc:
                    rule = "ec2_unparseable_price" if exc.rule == "not_a_number" else exc.rule
                    raise RowProblem(rule, f"{shown(value)} is not a positive USD per hour") from None
                frame.add(price_row(
                    provider=PROVIDER, region=region, zone=None, instance_type=itype, gpu_name=gpu_name,
                    gpus_per_instance=gpus, usd_per_instance_hour=usd, pricing=kind, observed_at=observed_at,
                    source=NAME, source_ref=ref, source_row=i, gpu_memory_gb=memory,
                ))


def parse(payload: Payload, observed_at: date) -> Parsed:
    ref = file_ref(payload)
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    seen: set[str] = set()
    count = 0
    for count, record in enumerate(json_items(NAME, payload.url, payload.body), start=1):
        if isinstance(record, dict):
            seen.update(k for k in FIELDS if k in record)
        keep = {k: record.get(k) for k in ("instance_type", "GPU", "GPU_model")} if isinstance(record, dict) else record
        name = record.get("instance_type") if isinstance(record, dict) else None
        with rejects.guard(count, keep, f"record {count} ({shown(name, 60) if name is not None else 'no name'})"):
            _record_rows(count, record, ref, observed_at, frame, rejects)
    if not count:
        raise SourceError(NAME, f"{payload.url}: empty instance list")
    for key in FIELDS:
        if key not in seen:
            raise SourceError(NAME, f"{payload.url}: field '{key}' missing from every record")
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="ec2instances.info instances.json: AWS GPU instances, Linux on-demand, spot average, 1y/3y reserved",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
    default_provider=PROVIDER,
    max_bytes=MAX_BYTES,
)
