"""Contract rows: the one price-row builder, value checks with named rules, and a compact frame.

Every parser turns a record into a row through these, so one record's bad value raises a
`RowProblem(rule, detail)` that the record loop (sources.kit.records.Rejects.guard) turns into one
Reject, and every row that does come out fits the contract: finite numbers of the contract's
types, plausible magnitudes, dates within 2000-2100.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime

import polars as pl

from sources.kit.contracts import PRICE_QUOTE, PRICE_STATISTICS, conform
from sources.kit.spec import SourceError

# Bounds for numbers that cannot be real: no instance has more GPUs (an NVL576 rack is 576),
# and no rental costs a million USD an hour, so a bigger figure is a unit or parsing error.
MAX_GPUS = 1024
MAX_USD_PER_HOUR = 1e6
MAX_GPU_MEMORY_GB = 2048  # per GPU; the largest card in 2026 has 288 GB
# Rows one payload may yield. The largest real ones yield ~10,000 (SkyPilot's aws catalog);
# a payload of one-line junk rows could yield millions and gigabytes of frame (docs/scale.md).
MAX_ROWS = 500_000
INT64_MAX = 2**63 - 1
YEARS = (2000, 2100)
CONTAINERS = (list, dict, tuple, set)
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:$|[T ])")


class RowProblem(Exception):
    """One record cannot become a row: `rule` is the machine name, `detail` the sentence."""

    def __init__(self, rule: str, detail: str):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail


def shown(value: object, limit: int = 60) -> str:
    """A short repr for details: containers by type only, so a huge or nested value stays cheap."""
    if isinstance(value, CONTAINERS):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + "..."
    if isinstance(value, int) and value.bit_length() > 256:  # repr of a giant int is slow, or refused
        return f"an integer of {len(str(value)) if value.bit_length() < 10_000 else 'thousands of'} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def number(value: object, what: str, bad_rule: str = "not_a_number") -> float | None:
    """A finite float from a CSV/JSON/YAML scalar; None when empty; RowProblem otherwise."""
    kind = type(value)
    if kind is str:
        value = value.strip()
        if not value:
            return None
        try:
            result = float(value)
        except ValueError:
            raise RowProblem(bad_rule, f"{what}={shown(value)} is not a number") from None
    elif kind is float or kind is int:
        try:
            result = float(value)
        except OverflowError:  # an int beyond float range
            raise RowProblem("implausible_value", f"{what}={shown(value)} is too large to be real") from None
    elif value is None:
        return None
    elif isinstance(value, CONTAINERS):
        raise RowProblem("wrong_type", f"{what} is {shown(value)}, not a number")
    else:  # bool, a date, ...
        raise RowProblem(bad_rule, f"{what}={shown(value)} is not a number")
    if result - result == 0:  # finite: the common case, checked cheaply
        return result
    if result != result or "inf" in str(value).lower():
        raise RowProblem("non_finite_value", f"{what}={shown(value)} is not a finite number")
    raise RowProblem("implausible_value", f"{what}={shown(value)} is too large to be real")  # "1e999"


def json_number(value: object) -> float | None:
    """A JSON/YAML number as a finite float; None for anything else (text, bool, nan, inf, a giant
    int). For helper figures whose absence is harmless; prices go through `number`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) > 1e300:
        return None
    result = float(value)
    return result if math.isfinite(result) else None


def finite(value: float, what: str) -> float:
    """A computed figure (a product, a sum) that must still be a real number."""
    if not math.isfinite(value):
        raise RowProblem("implausible_value", f"{what} works out to {value}, not a real figure")
    return value


def whole(value: object, what: str, bad_rule: str = "not_a_number") -> int | None:
    """An Int64 from a scalar: whole, and within Int64; None when empty."""
    result = number(value, what, bad_rule)
    if result is None:
        return None
    if result != int(result):
        raise RowProblem(bad_rule, f"{what}={shown(value)} is not a whole number")
    if abs(result) > INT64_MAX:
        raise RowProblem("implausible_value", f"{what}={shown(value)} does not fit a 64-bit integer")
    return int(value) if isinstance(value, int) else int(result)


def gpu_count(count: float, what: str = "GPU count") -> float:
    """A positive, plausible number of GPUs (fractions are GPU slices)."""
    if count <= 0:
        raise RowProblem("bad_value", f"{what}={count:g} must be > 0")
    if count > MAX_GPUS:
        raise RowProblem("implausible_value", f"{what}={count:g} is above {MAX_GPUS} GPUs")
    return count


def usd_per_hour(usd: float, what: str = "price") -> float:
    finite(usd, what)
    if usd > MAX_USD_PER_HOUR:
        raise RowProblem("implausible_value", f"{what}={usd:g} USD/hour is above {MAX_USD_PER_HOUR:g}")
    return usd


def memory_gb(gb: float | None) -> float | None:
    """Per-GPU memory when plausible; None (unknown) otherwise: memory only helps name the GPU,
    so a junk figure must not cost the price."""
    if gb is None or not math.isfinite(gb) or not 0 < gb <= MAX_GPU_MEMORY_GB:
        return None
    return float(gb)


def text(value: object, what: str) -> str | None:
    """A name or label: strings stripped (empty is None); YAML's `instance_type: 8` becomes "8"."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, bool | int | float) and not (isinstance(value, float) and not math.isfinite(value)):
        return str(value)
    raise RowProblem("wrong_type", f"{what} is {shown(value)}, not text")


def day(value: object, what: str) -> date:
    """An ISO YYYY-MM-DD string (a time may follow), a date or a datetime, in 2000-2100."""
    found = value
    if isinstance(value, str):
        text = value.strip()
        try:  # YYYY-MM-DD, optionally with a time; not Python's other ISO forms ("20260101", "2026-W01")
            found = datetime.fromisoformat(text).date() if ISO_DATE.match(text) else None
        except ValueError:
            found = None
    elif isinstance(value, datetime):
        found = value.date()
    if not isinstance(found, date):
        raise RowProblem("unparseable_date", f"{what} {shown(value)} is not a YYYY-MM-DD date")
    if not YEARS[0] <= found.year <= YEARS[1]:
        raise RowProblem("unparseable_date", f"{what} {shown(value)} is outside {YEARS[0]}-{YEARS[1]}")
    return found


def price_row(
    *, provider: str, region: str, zone: str | None, instance_type: str, gpu_name: str,
    gpus_per_instance: float, usd_per_instance_hour: float, pricing: str, observed_at: date,
    source: str, source_ref: str, source_row: int, gpu_memory_gb: float | None = None,
    price_statistic: str = "list", underlying_provider: str | None = None, currency: str = "USD",
) -> dict:
    """One PRICE_QUOTE row; RowProblem if a value would break the contract."""
    for name, value in (("provider", provider), ("region", region), ("instance_type", instance_type),
                        ("gpu_name", gpu_name), ("pricing", pricing), ("currency", currency)):
        if not isinstance(value, str) or not value.strip():
            raise RowProblem("missing_field", f"{name} is empty")
    if price_statistic not in PRICE_STATISTICS:
        raise ValueError(f"price_statistic {price_statistic!r}")  # a parser bug, not a data problem
    return {
        "provider": provider, "region": region, "zone": zone, "instance_type": instance_type,
        "gpu_name": gpu_name, "gpus_per_instance": gpu_count(finite(float(gpus_per_instance), "GPU count")),
        "usd_per_instance_hour": usd_per_hour(float(usd_per_instance_hour), "USD per instance-hour"),
        "pricing": pricing, "currency": currency, "observed_at": day(observed_at, "observed_at"),
        "source": source, "source_ref": source_ref, "source_row": source_row,
        "gpu_memory_gb": memory_gb(gpu_memory_gb), "price_statistic": price_statistic,
        "underlying_provider": underlying_provider,
    }


class Frame:
    """Rows gathered as tuples and handed to Polars in chunks: a large payload never holds one
    Python dict per row, which takes many times the file's size (docs/scale.md)."""

    CHUNK = 50_000

    def __init__(self, schema: dict[str, pl.DataType] = PRICE_QUOTE, source: str = "", max_rows: int = MAX_ROWS):
        self.schema = schema
        self.source = source
        self.max_rows = max_rows
        self.names = list(schema)
        self.rows: list[tuple] = []
        self.chunks: list[pl.DataFrame] = []
        self.height = 0

    def add(self, row: dict) -> None:
        self.rows.append(tuple(map(row.get, self.names)))
        self.height += 1
        if self.height > self.max_rows:
            raise SourceError(self.source, f"more than {self.max_rows:,} rows: not a payload this source could send")
        if len(self.rows) >= self.CHUNK:
            self._flush()

    def _flush(self) -> None:
        columns = zip(*self.rows, strict=True) if self.rows else ([] for _ in self.names)
        data = dict(zip(self.names, map(list, columns), strict=True))
        self.chunks.append(pl.DataFrame(data, schema=self.schema, strict=False))
        self.rows = []

    def finish(self) -> pl.DataFrame:
        self._flush()
        return conform(pl.concat(self.chunks, how="vertical"), self.schema)
