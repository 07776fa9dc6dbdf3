"""User-maintained price quotes (CSV or YAML) for prices no API publishes.

Format and examples: docs/quotes_and_runs.md. Each row is one instance type with its price
in exactly one form: usd_per_instance_hour | usd_per_gpu_hour | relative_to + multiplier
(a per-GPU multiple of another quote in the same file) | ownership fields (pricing
"owned"; formula in sources/quotes_file/price.py). File-only: `fetch` refuses.

Records are read by sources.kit.records (one bad row is one reject). Direct prices go straight into
the frame; only relative quotes wait until every row is read, since their target may come later.
"""

from __future__ import annotations

import re
from datetime import date

import polars as pl

from sources.kit import records
from sources.kit.contracts import PRICE_QUOTE, PRICING_MODELS
from sources.kit.rows import Frame, RowProblem, day, gpu_count, number, price_row, shown, text, usd_per_hour
from sources.kit.spec import Parsed, Payload, SourceSpec, file_only, file_ref
from sources.quotes_file import price

NAME = "quotes_file"
MAX_BYTES = 2 * 1024 * 1024  # a hand-kept file: ~18,000 quotes of ~110 bytes; split a bigger one
TEXT = {"provider", "region", "zone", "instance_type", "gpu_name", "pricing", "currency", "note", "source_ref",
        "relative_to"}
NUMERIC = set(price.NUMERIC)
FIELDS = {*TEXT, *NUMERIC, "observed_at"}
REQUIRED = ("provider", "instance_type", "gpu_name", "gpus_per_instance")

fetch = file_only(NAME, "quotes")


def _clean(record: dict, observed_at: date, default_ref: str) -> dict:
    """One record's fields (empty ones left out), normalised; RowProblem names the first thing wrong."""
    fields: dict = {}
    unknown = []
    for key, value in record.items():
        if value is None or value == "":
            continue
        if key in NUMERIC:
            value = number(value, key, "quote_not_a_number")
            if value is None:
                continue
            if value < 0:
                raise RowProblem("quote_negative_value", f"{key}={value:g} is negative")
        elif key in TEXT:  # YAML turns `instance_type: 8` into an int; names are text
            value = text(value, key)
        elif key != "observed_at":
            unknown.append(key)
        fields[key] = value
    if unknown:
        names = ", ".join(k[:40] for k in sorted(unknown)[:10])
        raise RowProblem("quote_unknown_field", f"has unknown field(s) {names}")
    missing = [k for k in REQUIRED if fields.get(k) is None]
    if missing:
        raise RowProblem("quote_missing_field", f"lacks {', '.join(missing)}")
    if fields["gpus_per_instance"] <= 0:
        raise RowProblem("quote_bad_value", "gpus_per_instance must be > 0")
    gpu_count(fields["gpus_per_instance"], "gpus_per_instance")
    currency = (fields.get("currency") or "USD").upper()
    if currency != "USD":
        raise RowProblem("quote_not_usd", f"currency {shown(currency)} is not USD (convert before quoting)")
    form, problem = price.form_of(fields)
    if problem:
        raise RowProblem(*problem)
    # "On-Demand", "SPOT" and "reserved 1y" are the same bases as on_demand, spot and reserved_1y
    given = fields.get("pricing")
    default = "owned" if form == "ownership" else "on_demand"
    pricing = re.sub(r"[\s-]+", "_", given.strip().lower()) if given else default
    if pricing not in PRICING_MODELS:
        raise RowProblem("quote_bad_pricing", f"pricing {shown(given)} is not one of {', '.join(PRICING_MODELS)}")
    if form == "ownership" and pricing != "owned":
        raise RowProblem("quote_ownership_pricing", f"ownership fields with pricing {shown(pricing)} (must be owned)")
    fields |= {
        "form": form,
        "pricing": pricing,
        "observed_at": day(fields.get("observed_at", observed_at), "observed_at"),
        "region": fields.get("region") or "global",
        "source_ref": fields.get("source_ref") or default_ref,
    }
    if form != "relative":
        usd, problem = price.direct_price(form, fields)
        if problem:
            raise RowProblem(*problem)
        fields["usd"] = usd_per_hour(usd, "USD per instance-hour")
    return fields


def _row(n: int, fields: dict, usd: float) -> dict:
    return price_row(
        provider=fields["provider"], region=fields["region"], zone=fields.get("zone"),
        instance_type=fields["instance_type"], gpu_name=fields["gpu_name"],
        gpus_per_instance=fields["gpus_per_instance"], usd_per_instance_hour=usd, pricing=fields["pricing"],
        observed_at=fields["observed_at"], source=NAME, source_ref=fields["source_ref"], source_row=n,
        gpu_memory_gb=fields.get("gpu_memory_gb"),
    )


def parse(payload: Payload, observed_at: date) -> Parsed:
    rejects = records.Rejects(NAME)
    ref = file_ref(payload)
    frame = Frame(PRICE_QUOTE, NAME)
    relatives: dict[int, dict] = {}  # priced once every row is read (a target may come later)
    rejected: list[tuple] = []  # (row, instance_type, gpu_name, pricing): a relative_to may name one
    for rec in records.read(NAME, payload, noun="quotes", formats=("csv", "yaml", "yml"), required=REQUIRED,
                            known=FIELDS, list_key="quotes"):
        value = rec.value
        label = value.get("instance_type") if isinstance(value, dict) else None
        with rejects.guard(rec.number, value, records.where("quote", rec.number, label, "no instance_type")):
            if rec.problem:
                raise RowProblem(*rec.problem)
            fields = _clean(value, observed_at, ref)
            if fields["form"] == "relative":
                relatives[rec.number] = fields
            else:
                frame.add(_row(rec.number, fields, fields["usd"]))
            continue
        if isinstance(value, dict):  # reached only when the guard rejected the record
            rejected.append((rec.number, *(_name(value.get(k)) for k in ("instance_type", "gpu_name", "pricing"))))
    direct = frame.finish()
    if not relatives:
        return Parsed(direct, rejects.result(by_row=True))
    priced = Frame(PRICE_QUOTE, NAME)
    for n, fields, usd, problem in price.resolve(relatives, direct, rejected):
        if problem:
            where = records.where("quote", n, fields["instance_type"], "no instance_type")
            rejects.add(n, problem[0], f"{where} {problem[1]}")
            continue
        with rejects.guard(n, {}, f"quote {n}"):
            priced.add(_row(n, fields, usd))
    rows = pl.concat([direct, priced.finish()]).sort("source_row", maintain_order=True)
    return Parsed(rows, rejects.result(by_row=True))


def _name(value: object) -> str | None:
    return str(value).strip() if isinstance(value, str | int | float) and not isinstance(value, bool) else None


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="User-maintained quotes file (CSV/YAML): negotiated, relative and owned-hardware prices",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
    max_bytes=MAX_BYTES,
)
