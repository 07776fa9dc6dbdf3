"""A private, in-memory copy of the warehouse for what-if questions and predictions.

Commands that change inputs (a measured baseline, a precision, a GPU count) must not touch
the nightly warehouse, so they copy its reference tables and observations into memory and
run the same models there. Without a warehouse yet, the bundled data stands in.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from warehouse import db

COPIED_TABLES = (
    "gpu",
    "platform",
    "model",
    "workload",
    "gpu_alias",
    "efficiency_default",
    "stage_efficiency_default",
    "assumption",
    "api_price",
    "benchmark_result",
    "price_quote",
)


def today() -> date:
    return datetime.now(UTC).date()


def scratch_copy(warehouse: str | None) -> duckdb.DuckDBPyConnection:
    con = db.connect(":memory:")
    if warehouse and Path(warehouse).exists():
        quoted = warehouse.replace("'", "''")
        con.execute(f"attach '{quoted}' as source_warehouse (read_only)")
        for table in COPIED_TABLES:
            con.execute(f"insert into {table} by name select * from source_warehouse.{table}")
        con.execute("detach source_warehouse")
    else:
        _load_bundled(con)
    return con


def _load_bundled(con: duckdb.DuckDBPyConnection) -> None:
    from sources import bundled
    from sources.catalog import load_catalog
    from warehouse.load import RunContext, load_benchmarks, load_prices
    from warehouse.reference_load import load_reference

    run = RunContext.new("scratch", today())
    load_reference(con, load_catalog(), run)
    load_benchmarks(con, "bundled", bundled.load_benchmark_results(), run)
    load_prices(con, "bundled_snapshot", bundled.load_price_snapshot(), run)


def sql_file(name: str) -> str:
    from importlib import resources

    return (resources.files("warehouse") / "sql" / name).read_text()
