"""Rows that share a key: only rows that break no other rule compete, so an implausible row never
knocks out a good one; of two good rows the one from the payload kept last wins, and the row
rejected as duplicate_key names the row kept instead."""

from datetime import date, datetime

import pytest

from sources.kit.spec import Parsed
from tests.warehouse.test_loads import prices, quote, rejects, stored
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from warehouse.loading.load import RunContext, load_benchmarks, load_prices
from warehouse.loading.reference_load import load_reference

DAY = date(2026, 11, 29)
RUN = RunContext.new("2026-11-29-test", DAY)
# Two files of one day: a.csv sorts first, so it comes first in the day's batch.
FIRST, SECOND = "quotes_file/2026-11-29/a.csv", "quotes_file/2026-11-29/b.csv"


@pytest.fixture
def warehouse(con):
    load_reference(con, toy_catalog(), RUN)
    return con


def kept(con, name: str, at: str) -> None:
    """Index a payload as `ingest` does before it loads the day: when it was kept under raw/."""
    con.execute(
        "insert into raw_payload (source, run_date, name, fetched_at) values ('quotes_file', ?, ?, ?)",
        [DAY, name, datetime.fromisoformat(at)],
    )


def day_of_quotes(first: dict, second: dict) -> Parsed:
    rows = prices([quote(**first), quote(**second)]).rows
    return Parsed(rows.with_columns(payload=rows["source_ref"].replace({"a": FIRST, "b": SECOND})))


def test_an_implausible_new_row_does_not_knock_out_the_good_stored_one(warehouse):
    # b.csv was ingested first with a good price; a.csv, ingested later, has $0.0001 an hour for the same quote
    kept(warehouse, "b.csv", "2026-11-29T09:00")
    kept(warehouse, "a.csv", "2026-11-29T10:00")
    batch = day_of_quotes(dict(source_ref="a", usd_per_instance_hour=0.0001), dict(source_ref="b"))
    result = load_prices(warehouse, "quotes_file", batch, RUN, [FIRST, SECOND])
    assert (result.loaded, result.rejected) == (1, 2)
    assert stored(warehouse, "select source_ref, usd_per_gpu_hour from price_quote") == [("b", 2.0)]
    got = rejects(warehouse, "price_quote")
    assert [(row, rule) for row, rule, _ in got] == [(1, "duplicate_key"), (1, "implausible_price_low")]
    assert got[0][2].endswith("; kept: quotes_file/2026-11-29/b.csv row 1")
    assert "kept:" not in got[1][2]  # only the duplicate names the row kept instead


def test_an_impossible_run_does_not_knock_out_the_good_one(warehouse):
    runs = benchmark_frame([benchmark(value=1e300, source_ref="a"), benchmark(source_ref="b")])
    runs = runs.with_columns(payload=runs["source_ref"].replace({"a": FIRST, "b": SECOND}))
    result = load_benchmarks(warehouse, "test", Parsed(runs), RUN, [FIRST, SECOND])
    assert result.loaded == 1
    assert warehouse.execute("select source_ref, value from benchmark_result").fetchall() == [("b", 8000.0)]
    assert [r[1] for r in rejects(warehouse, "benchmark_result")] == ["duplicate_key", "exceeds_hardware_peak"]


@pytest.mark.parametrize(
    ("a_kept", "b_kept", "winner", "loser_row_detail"),
    [
        # b.csv kept later: it corrects a.csv, although a.csv sorts first
        ("2026-11-29T09:00", "2026-11-29T10:00", ("b", 3.0), "kept: quotes_file/2026-11-29/b.csv row 1"),
        # the same batch with a.csv kept later: a.csv wins (the cached result of the first case is not reused)
        ("2026-11-29T10:00", "2026-11-29T09:00", ("a", 2.0), "kept: quotes_file/2026-11-29/a.csv row 1"),
    ],
)
def test_of_two_good_rows_the_latest_kept_payload_wins_and_the_reject_names_it(
    warehouse, a_kept, b_kept, winner, loser_row_detail
):
    kept(warehouse, "a.csv", a_kept)
    kept(warehouse, "b.csv", b_kept)
    batch = day_of_quotes(dict(source_ref="a"), dict(source_ref="b", usd_per_instance_hour=3.0))
    result = load_prices(warehouse, "quotes_file", batch, RUN, [FIRST, SECOND])
    assert (result.loaded, result.rejected) == (1, 1)
    assert stored(warehouse, "select source_ref, usd_per_gpu_hour from price_quote") == [winner]
    ((_, rule, detail),) = rejects(warehouse, "price_quote")
    assert rule == "duplicate_key"
    assert "the row of the payload kept last is kept" in detail and detail.endswith(loser_row_detail)


def test_within_one_payload_the_first_row_is_kept(warehouse):
    parsed = prices([quote(source_row=1), quote(source_row=2, usd_per_instance_hour=3.0)])
    load_prices(warehouse, "quotes_file", parsed, RUN, [FIRST])
    assert stored(warehouse) == [("toy.1x", 2.0)]
    ((row, rule, detail),) = rejects(warehouse, "price_quote")
    assert (row, rule) == (2, "duplicate_key") and detail.endswith("; kept: quotes_file/2026-11-29/a.csv row 1")
