"""Write the estimate, price and benchmark tables as Parquet or CSV files, for other tools.

Reads through the warehouse's read-only door (any backend) and writes with pyarrow, so the
reader never needs DuckDB's file access. Rows are sorted on every column, so the same
warehouse always gives the same files. In CSV, a text cell a spreadsheet would run as a
formula (text from a quotes file can be anything) starts with a quote, so it shows as text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow
import pyarrow.compute
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
# A spreadsheet runs a text cell starting with one of these as a formula; a leading quote makes
# it text (OWASP's advice on CSV injection). Numbers are left alone: -2 stays a number.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
AS_TEXT = "'"


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
            pyarrow.csv.write_csv(spreadsheet_columns(data), path)
        written.append((path, data.num_rows))
    return written


def spreadsheet_text(value):
    """A cell for a CSV file: text that would run as a formula gets a leading quote; the rest as it is."""
    return AS_TEXT + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def spreadsheet_columns(table: pyarrow.Table) -> pyarrow.Table:
    """The table with spreadsheet_text's rule applied to every text column, at once."""
    formula = "^(?:" + "|".join(re.escape(start) for start in FORMULA_STARTS) + ")"
    for i, field in enumerate(table.schema):
        if pyarrow.types.is_string(field.type) or pyarrow.types.is_large_string(field.type):
            text = table.column(i)
            quoted = pyarrow.compute.binary_join_element_wise(AS_TEXT, text, "")
            guarded = pyarrow.compute.if_else(pyarrow.compute.match_substring_regex(text, formula), quoted, text)
            table = table.set_column(i, field, guarded)
    return table
