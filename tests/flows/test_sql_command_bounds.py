"""`gpucalc sql`: one statement as the user wrote it (a PIVOT is one), and options within bounds,
on a DuckDB file and on a DuckLake with a SQLite catalog."""

from __future__ import annotations

import duckdb
import pytest

from tests.flows.cli_helpers import gpucalc
from warehouse.store import lake
from warehouse.store.location import parse

ROWS = "(1, 'spot', 1.5), (2, 'on_demand', 2.5), (3, 'spot', 0.5)"


@pytest.fixture(scope="module", params=["file", "ducklake-sqlite"])
def warehouse(request, tmp_path_factory) -> list[str]:
    """`--data-dir` and `--warehouse` for a warehouse holding three quotes."""
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "file":
        location = str(folder / "warehouse.duckdb")
        con = duckdb.connect(location)
    else:
        location = f"ducklake:sqlite:{folder / 'catalog.sqlite'}"
        con = lake.connect(parse(location), data_path=f"{folder / 'files'}/")
    try:
        con.execute("create table price_quote (quote_id int, pricing varchar, usd_per_hour double)")
        con.execute(f"insert into price_quote values {ROWS}")
    finally:
        con.close()
    return ["--data-dir", str(folder), "--warehouse", location]


def test_a_pivot_is_one_statement_on_every_backend(warehouse):
    query = "pivot price_quote on pricing using count(*) group by quote_id order by quote_id"
    result = gpucalc("sql", query, "--format", "csv", *warehouse)
    assert result.exit_code == 0, result.output
    assert result.output == "quote_id,on_demand,spot\n1,0,1\n2,1,0\n3,0,1\n"
    result = gpucalc("sql", "select ';' as semicolon -- ; a comment", "--format", "csv", *warehouse)
    assert (result.exit_code, result.output) == (0, "semicolon\n;\n")
    for two in ("select 1; pivot price_quote on pricing using count(*)", "pivot price_quote on pricing; select 1"):
        result = gpucalc("sql", two, *warehouse)
        assert result.exit_code == 2 and "one statement per call, please (2 given)" in result.output, result.output


def test_a_timeout_beyond_a_week_or_a_row_limit_below_one_is_a_usage_error(warehouse):
    result = gpucalc("sql", "select 1", "--timeout", "1e300", *warehouse)
    assert (result.exit_code, result.output) == (2, "--timeout must be at most 604800 seconds (a week), got 1e+300\n")
    assert gpucalc("sql", "select 1", "--timeout", "604800", *warehouse).exit_code == 0
    for few in ("-1", "0"):
        result = gpucalc("sql", "select 1", "--max-rows", few, *warehouse)
        assert (result.exit_code, result.output) == (2, f"--max-rows must be a number of rows from 1 up, got {few}\n")


def test_help_says_the_bounds():
    result = gpucalc("sql", "--help")
    text = " ".join(result.output.replace("│", " ").split())  # the help's box, unwrapped
    assert "at most 604800 (a week)" in text and "at least 1" in text, text
