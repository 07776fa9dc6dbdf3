"""Write the estimate, price and benchmark tables as Parquet or CSV files, for other tools.

Reads through the warehouse's read-only door (any backend) and writes with pyarrow, so the
reader never needs DuckDB's file access. Rows are sorted on every column, so the same
warehouse always gives the same files.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.csv
import pyarrow.parquet

# The tables and views people ask for most (docs/schema.md says what each column means).
TABLES = (
    "estimate_best",     # cheapest quote per workload x platform x GPU count x pricing, tonight
    "estimate_daily",    # best option per workload x platform x pricing, per night
    "pareto",            # per workload, options no other beats on both time and cost
    "night_option",      # every option of every night's report
    "price_quote",       # every price observed
    "latest_price",      # latest observation of every quote up to tonight
    "cheapest_per_gpu",  # cheapest GPU-hour per accelerator and pricing
    "benchmark_result",  # measured throughput
    "calibration_point", # each benchmark next to the model's prediction
    "backtest",          # leave-one-accelerator-out predictions
    "error_band",        # the error percentiles per kind and confidence
    "run_log",           # one row per run
)
FORMATS = ("parquet", "csv")


def export(con, out_dir: Path, fmt: str = "parquet") -> list[tuple[Path, int]]:
    """Write every table of TABLES that the warehouse has; returns (file, rows) per table."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    present = {name for (name,) in con.execute(
        "select table_name from duckdb_tables() union all select view_name from duckdb_views()"
    ).fetchall()}
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TABLES:
        if name not in present:
            continue
        data = con.execute(f"select * from {name} order by all").to_arrow_table()  # names are ours, not input
        path = out_dir / f"{name}.{fmt}"
        if fmt == "parquet":
            pyarrow.parquet.write_table(data, path)
        else:
            pyarrow.csv.write_csv(data, path)
        written.append((path, data.num_rows))
    return written
