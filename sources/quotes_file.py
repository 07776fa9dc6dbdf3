"""User-maintained price quotes (CSV or YAML) for prices no API publishes.

Format and examples: docs/quotes_and_runs.md. Each row is one instance type with its price
in exactly one form: usd_per_instance_hour | usd_per_gpu_hour | relative_to + multiplier
(a per-GPU multiple of another quote in the same file) | ownership fields (pricing
"owned"; formula in sources/_quotes_file_price.py). File-only: `fetch` refuses.
"""

from __future__ import annotations

import csv
import io
from datetime import date, datetime

import polars as pl
import yaml

from sources import _quotes_file_price as price
from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec, file_only, file_ref
from sources.contracts import PRICE_QUOTE, PRICING_MODELS, conform

NAME = "quotes_file"
TEXT = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_name",
    "pricing",
    "currency",
    "note",
    "source_ref",
    "relative_to",
)
FIELDS = {*TEXT, *price.NUMERIC, "observed_at"}
REQUIRED = ("provider", "instance_type", "gpu_name", "gpus_per_instance")


fetch = file_only(NAME, "quotes")


def _records(payload: Payload) -> list:
    kind = payload.name.lower().rsplit(".", 1)[-1]
    try:
        text = payload.body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(NAME, f"{payload.url}: not UTF-8 text ({exc})") from exc
    if kind in ("yaml", "yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SourceError(NAME, f"{payload.url}: invalid YAML ({exc})") from exc
        # A bare list, or {"quotes": [...]} so the file can carry other top-level notes.
        records = [] if data is None else data.get("quotes", data) if isinstance(data, dict) else data
        if not isinstance(records, list):
            raise SourceError(NAME, f"{payload.url}: expected a list of quotes (or a 'quotes:' list)")
    elif kind == "csv":
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        reader = csv.DictReader(io.StringIO("\n".join(lines)))
        header = [h.strip().lower() for h in reader.fieldnames or []]
        unknown = sorted(set(header) - FIELDS)
        missing = [c for c in REQUIRED if c not in header]
        if unknown or missing:
            raise SourceError(
                NAME, f"{payload.url}: CSV header problem (unknown columns {unknown}, missing {missing})"
            )
        records = [{k.strip().lower(): v for k, v in r.items() if k is not None} for r in reader]
    else:
        raise SourceError(NAME, f"{payload.url}: quotes file must end in .csv, .yaml or .yml")
    if not records:
        raise SourceError(NAME, f"{payload.url}: no quotes in file")
    return records


def _clean(record: dict, observed_at: date, default_ref: str) -> tuple[dict, tuple[str, str] | None]:
    """Normalise one record; return (fields, problem)."""
    fields = {
        str(k).strip().lower(): (v.strip() or None) if isinstance(v, str) else v for k, v in record.items()
    }
    unknown = sorted(set(fields) - FIELDS)
    if unknown:
        return fields, ("quote_unknown_field", f"has unknown field(s) {', '.join(unknown)}")
    for key in TEXT:  # YAML turns `instance_type: 8` into an int; names are text
        if fields.get(key) is not None and not isinstance(fields[key], str):
            fields[key] = str(fields[key])
    for key in price.NUMERIC:
        value = fields.get(key)
        if value is None:
            continue
        try:
            if isinstance(value, bool):
                raise ValueError
            fields[key] = float(value)
        except (TypeError, ValueError):
            return fields, ("quote_not_a_number", f"{key}={value!r} is not a number")
        if fields[key] < 0:
            return fields, ("quote_negative_value", f"{key}={value} is negative")
    missing = [k for k in REQUIRED if fields.get(k) is None]
    if missing:
        return fields, ("quote_missing_field", f"lacks {', '.join(missing)}")
    if fields["gpus_per_instance"] <= 0:
        return fields, ("quote_bad_value", "gpus_per_instance must be > 0")
    currency = str(fields.get("currency") or "USD").upper()
    if currency != "USD":
        return fields, ("quote_not_usd", f"currency {currency} is not USD (convert before quoting)")
    day = fields.get("observed_at") or observed_at
    if isinstance(day, str):
        try:
            day = date.fromisoformat(day)
        except ValueError:
            return fields, ("quote_bad_date", f"observed_at {day!r} is not YYYY-MM-DD")
    if isinstance(day, datetime):
        day = day.date()
    if not isinstance(day, date):
        return fields, ("quote_bad_date", f"observed_at {day!r} is not a date")
    form, problem = price.form_of(fields)
    if problem:
        return fields, problem
    pricing = fields.get("pricing") or ("owned" if form == "ownership" else "on_demand")
    if pricing not in PRICING_MODELS:
        return fields, ("quote_bad_pricing", f"pricing {pricing!r} is not one of {', '.join(PRICING_MODELS)}")
    if form == "ownership" and pricing != "owned":
        return fields, (
            "quote_ownership_pricing",
            f"ownership fields with pricing {pricing!r} (must be owned)",
        )
    fields |= {
        "form": form,
        "pricing": pricing,
        "currency": currency,
        "observed_at": day,
        "region": fields.get("region") or "global",
        "source_ref": fields.get("source_ref") or default_ref,
    }
    return fields, None


def _resolve_relative(rows: dict[int, dict], bad: dict[int, tuple[str, str]]) -> None:
    """Price relative rows from their targets, repeating so chains resolve; cycles are rejected."""
    pending = [n for n, r in rows.items() if r.get("form") == "relative" and n not in bad]
    while pending:
        progressed = False
        for n in list(pending):
            row = rows[n]
            if row.get("relative_to") is None or row.get("multiplier") is None:
                bad[n] = ("quote_incomplete_relative", "relative quotes need both relative_to and multiplier")
            else:
                target, problem = price.relative_target(n, row["relative_to"], row["pricing"], rows)
                if problem:
                    bad[n] = problem
                elif target in bad:
                    bad[n] = (
                        "quote_relative_target_rejected",
                        f"relative_to points at rejected quote {target}",
                    )
                elif rows[target].get("usd_per_instance_hour_final") is None:
                    continue  # the target is itself relative and not priced yet
                else:
                    per_gpu = rows[target]["usd_per_instance_hour_final"] / rows[target]["gpus_per_instance"]
                    row["usd_per_instance_hour_final"] = (
                        row["multiplier"] * per_gpu * row["gpus_per_instance"]
                    )
            pending.remove(n)
            progressed = True
        if not progressed:
            for n in pending:
                bad[n] = (
                    "quote_relative_cycle",
                    f"relative_to {rows[n]['relative_to']!r} never resolves (cycle)",
                )
            return


def parse(payload: Payload, observed_at: date) -> Parsed:
    rows: dict[int, dict] = {}
    bad: dict[int, tuple[str, str]] = {}
    for i, record in enumerate(_records(payload), start=1):
        if not isinstance(record, dict):
            rows[i], bad[i] = {}, ("quote_not_a_mapping", "is not a mapping of field: value")
            continue
        rows[i], problem = _clean(record, observed_at, file_ref(payload))
        if problem:
            bad[i] = problem
        elif rows[i]["form"] != "relative":
            value, problem = price.direct_price(rows[i]["form"], rows[i])
            if problem:
                bad[i] = problem
            rows[i]["usd_per_instance_hour_final"] = value
    _resolve_relative(rows, bad)

    rejects = [
        Reject(
            NAME,
            n,
            rule,
            f"quote {n} ({rows[n].get('instance_type') or 'no instance_type'}) {detail}",
            {k: v for k, v in rows[n].items() if k in FIELDS},
        )
        for n, (rule, detail) in sorted(bad.items())
    ]
    good = [
        {
            k: r.get(k)
            for k in (
                "provider",
                "region",
                "zone",
                "instance_type",
                "gpu_name",
                "gpus_per_instance",
                "pricing",
                "currency",
                "observed_at",
                "source_ref",
            )
        }
        | {"usd_per_instance_hour": r["usd_per_instance_hour_final"], "source": NAME, "source_row": n}
        for n, r in rows.items()
        if n not in bad
    ]
    frame = pl.DataFrame(good, infer_schema_length=None)
    return Parsed(conform(frame, PRICE_QUOTE), rejects)


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="User-maintained quotes file (CSV/YAML): negotiated, relative and owned-hardware prices",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
)
