"""CSV for a spreadsheet: a text cell that a spreadsheet would run as a formula is written as
text (a leading quote), by `gpucalc export --format csv` and `gpucalc sql --format csv`; numbers,
negative ones too, stay numbers."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import duckdb
import pytest

from tests.flows.cli_helpers import gpucalc

# text fields of a quotes file, as a hostile or careless one may spell them
CELLS = ['=HYPERLINK("http://x.example","click")', "=cmd|' /C calc'!A0", "@SUM(1+1)", "+1", "-2", "\tx", "\rx",
         "plain", "a=b", ""]
NEUTRALISED = ["'" + CELLS[0], "'" + CELLS[1], "'@SUM(1+1)", "'+1", "'-2", "'\tx", "'\rx", "plain", "a=b", ""]


@pytest.fixture
def data(tmp_path) -> Path:
    con = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    try:
        con.execute("create table price_quote (quote_id int, provider varchar, usd_per_instance_hour double)")
        con.executemany("insert into price_quote values (?, ?, ?)",
                        [(i, cell, -1.5 if i == 0 else 1.0) for i, cell in enumerate(CELLS)])
    finally:
        con.close()
    return tmp_path


def test_export_writes_formula_cells_as_text_and_numbers_as_numbers(data):
    result = gpucalc("export", "--format", "csv", "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    with open(data / "export" / "price_quote.csv", newline="") as exported:  # a carriage return as written
        text = exported.read()
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["quote_id", "provider", "usd_per_instance_hour"]
    assert [row[1] for row in rows[1:]] == NEUTRALISED
    assert [row[2] for row in rows[1:]] == ["-1.5"] + ["1"] * (len(CELLS) - 1)
    assert "\n0,\"'=HYPERLINK" in text and ",-1.5\n" in text  # the number unquoted, as a number


def test_sql_csv_writes_formula_cells_as_text_and_numbers_as_numbers(data):
    query = "select provider, -usd_per_instance_hour as credit from price_quote order by quote_id"
    result = gpucalc("sql", query, "--format", "csv", "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.output, newline="")))
    assert rows[1:] == [[cell, "1.5" if i == 0 else "-1.0"] for i, cell in enumerate(NEUTRALISED)]
