"""The bundled offline observations: a dated price snapshot and benchmark results.

Every run loads these, so every estimate has calibration points and, where no live source
has priced a provider yet, its prices: a live source's quotes for a provider replace the
snapshot's quotes for that provider (each snapshot row names the provider whose catalog it
was read from), while your quotes and runs add to them. Both CSVs live in `sources/data/`:
the price snapshot is composed by hand from public catalogs, the benchmark results' MLPerf
rows are written by `sources/bundled/build_benchmarks.py` from the shared MLPerf extracts;
`sources/data/OBSERVATIONS.md` says where every row came from.

This package is the embedded default, the data a run has without the network: these
observations here, the reference catalog (catalog.py), the ownership cost formula
(ownership.py); the files they read are in sources/data/, shipped in the wheel.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date
from importlib import resources

import polars as pl

from sources.kit.contracts import BENCHMARK_RESULT, PRICE_QUOTE, conform
from sources.kit.spec import Parsed

PRICE_FILE = "price_snapshot.csv"
BENCHMARK_FILE = "benchmark_results.csv"
# Their payload ids in the warehouse: each load of a bundled file replaces its rows.
PRICE_PAYLOAD = "bundled/" + PRICE_FILE
PRICE_SOURCE = "bundled_snapshot"  # price_quote.source of the snapshot's rows
BENCHMARK_PAYLOAD = "bundled/" + BENCHMARK_FILE
PAYLOADS = (PRICE_PAYLOAD, BENCHMARK_PAYLOAD)

# The day the catalogs behind price_snapshot.csv were read; every quote carries it.
SNAPSHOT_DATE = date(2026, 11, 1)


def _read(filename: str, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Read one bundled CSV with the contract's types and number its data rows from 1."""
    # Read every cell as text and let `conform` cast it: one place decides the types, and a
    # malformed cell becomes a null that validation reports instead of a parse failure here.
    path = resources.files("sources") / "data" / filename
    with resources.as_file(path) as local:
        frame = pl.read_csv(local, infer_schema_length=0)
    frame = frame.with_columns(pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("source_row"))
    # Dates must be YYYY-MM-DD: parse with that format so any other layout is null, not a guess.
    dates = [name for name, dtype in schema.items() if dtype == pl.Date]
    frame = frame.with_columns([pl.col(name).str.to_date("%Y-%m-%d", strict=False) for name in dates])
    return conform(frame, schema)


def load_price_snapshot(without_providers: Collection[str] = ()) -> Parsed:
    """The bundled price snapshot as PRICE_QUOTE rows, but for the providers named."""
    rows = _read(PRICE_FILE, PRICE_QUOTE)
    return Parsed(rows=rows.filter(~pl.col("provider").is_in(list(without_providers))), rejects=[])


def load_benchmark_results() -> Parsed:
    """The bundled MLPerf and user-run results as BENCHMARK_RESULT rows."""
    return Parsed(rows=_read(BENCHMARK_FILE, BENCHMARK_RESULT), rejects=[])
