"""Reading one SkyPilot `vms.csv` payload: columns by name, numbers with named rejects.

Shared by `sources.skypilot` (every cloud) and `sources._skypilot_gcp` (host + GPU rows).
Column order differs per cloud and some clouds add columns (price_sources.md §2), so
nothing here depends on a position.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from datetime import date

from sources.base import Payload, Reject, SourceError

SOURCE = "skypilot"

# Every cloud's file has these (README v8 schema); AvailabilityZone is optional (Azure v6,
# Lambda, Vast and others leave it out).
REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region")
PRICE_COLUMNS = (("Price", "on_demand"), ("SpotPrice", "spot"))


@dataclass
class Table:
    name: str
    header: list[str]
    rows: list[tuple[int, dict[str, str]]]  # (1-based data row, header excluded; values)
    rejects: list[Reject] = field(default_factory=list)


def read_table(payload: Payload) -> Table:
    """Split a payload into rows by column name, or raise SourceError if it is unusable."""
    body = payload.body
    if not body.strip():
        raise SourceError(SOURCE, f"{payload.name}: empty body")
    # Every catalog file ends with a newline; one that does not was cut mid-row, and the
    # cut row can still look valid (55.04 -> 55.0), so the whole payload is refused.
    if not body.endswith(b"\n"):
        raise SourceError(SOURCE, f"{payload.name}: truncated (last line has no newline)")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(SOURCE, f"{payload.name}: not UTF-8 ({exc})") from exc
    try:
        lines = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise SourceError(SOURCE, f"{payload.name}: not a CSV file ({exc})") from exc
    header = [name.strip() for name in lines[0]]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        shown = ", ".join(header[:12])
        raise SourceError(
            SOURCE, f"{payload.name}: required column(s) {', '.join(missing)} missing; header is {shown}"
        )
    table = Table(payload.name, header, [])
    for number, values in enumerate(lines[1:], start=1):
        if not values:
            continue
        if len(values) != len(header):
            detail = f"row {number}: {len(values)} fields, header has {len(header)}"
            table.rejects.append(Reject(SOURCE, number, "malformed_row", detail, {"values": values}))
            continue
        table.rows.append((number, {k: v.strip() for k, v in zip(header, values, strict=True)}))
    return table


def number(row: dict[str, str], column: str) -> float | None:
    """The column as a finite float, None when empty; ValueError names the bad value."""
    text = row.get(column, "")
    if text == "":
        return None
    value = float(text)  # ValueError for junk
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def price(row_no: int, row: dict[str, str], column: str) -> tuple[float | None, Reject | None]:
    """A usable price, or None when not offered (empty or 0), or a Reject saying why not."""
    try:
        value = number(row, column)
    except ValueError:
        detail = f"row {row_no}: {column} {row.get(column)!r} is not a number"
        return None, Reject(SOURCE, row_no, "unparseable_price", detail, row)
    if value is not None and value < 0:
        return None, Reject(SOURCE, row_no, "negative_price", f"row {row_no}: {column} is {value}", row)
    # SkyPilot writes 0 / empty for "not offered or unknown" (Vast SpotPrice 0.00, §2).
    return (value if value else None), None


def quote(
    *, provider: str, row_no: int, region: str, zone: str | None, instance_type: str,
    gpu_name: str, gpus: float, usd: float, pricing: str, ref: str, observed_at: date,
) -> dict:
    return {
        "provider": provider, "region": region, "zone": zone, "instance_type": instance_type,
        "gpu_name": gpu_name, "gpus_per_instance": gpus, "usd_per_instance_hour": usd,
        "pricing": pricing, "currency": "USD", "observed_at": observed_at, "source": SOURCE,
        "source_ref": ref, "source_row": row_no,
    }
