"""Stage -> validate -> merge: bad rows land in rejected_row with source, row and rule;
good rows load; the same input twice leaves the warehouse unchanged."""

from datetime import date

import polars as pl
import pytest

from sources.base import Parsed, Reject
from sources.contracts import PRICE_QUOTE, conform
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from warehouse.load import RunContext, load_benchmarks, load_prices, record_source_failure
from warehouse.reference_load import load_reference

RUN = RunContext.new("test-run", date(2026, 11, 29))


def quote(**overrides):
    row = dict(
        provider="acme",
        region="us-east",
        zone=None,
        instance_type="toy.1x",
        gpu_name="TOY",
        gpus_per_instance=1.0,
        usd_per_instance_hour=2.0,
        pricing="on_demand",
        currency="USD",
        observed_at=date(2026, 11, 29),
        source="test",
        source_ref="fixture",
        source_row=1,
    )
    row.update(overrides)
    return row


def prices(rows):
    frame = pl.DataFrame(rows, schema={k: v for k, v in PRICE_QUOTE.items() if k in rows[0]})
    return Parsed(conform(frame, PRICE_QUOTE))


@pytest.fixture
def warehouse(con):
    load_reference(con, toy_catalog(), RUN)
    return con


def rejects(con, table):
    return con.execute(
        "select source_row, rule, detail from rejected_row where target_table = ? order by source_row, rule",
        [table],
    ).fetchall()


def test_bad_price_rows_are_rejected_by_rule_and_the_rest_load(warehouse):
    rows = [
        quote(source_row=1),
        quote(source_row=2, instance_type="toy.neg", usd_per_instance_hour=-1.0),
        quote(source_row=3, instance_type="toy.absurd", usd_per_instance_hour=5000.0),
        quote(source_row=4, instance_type="toy.unknown", gpu_name="Z9000"),
        quote(source_row=5),  # duplicate of row 1
        quote(source_row=6, instance_type="toy.future", observed_at=date(2027, 1, 1)),
        quote(source_row=7, instance_type="toy.plan", pricing="monthly"),
        quote(source_row=8, instance_type="toy.eur", currency="EUR"),
        quote(source_row=9, instance_type="toy.alias", gpu_name="  toy gpu 80gb "),
        quote(source_row=10, instance_type=None),
    ]
    parsed = prices(rows)
    parsed.rejects.append(Reject("test", 11, "unparseable_price", "row 11: Price 'abc' is not a number"))
    result = load_prices(warehouse, "test", parsed, RUN)
    assert (result.loaded, result.rejected) == (2, 9)
    got = rejects(warehouse, "price_quote")
    assert [(r[0], r[1]) for r in got] == [
        (2, "price_per_gpu_hour_range"),
        (3, "price_per_gpu_hour_range"),
        (4, "unknown_gpu"),
        (5, "duplicate_key"),
        (6, "date_in_future"),
        (7, "known_pricing_model"),
        (8, "currency_usd"),
        (10, "required_instance_type"),
        (11, "unparseable_price"),
    ]
    assert got[2][2] == "test row 4: GPU name 'Z9000' does not resolve through gpu_alias"
    loaded = warehouse.execute("select gpu, usd_per_gpu_hour from price_quote order by instance_type").fetchall()
    assert loaded == [("TOY", 2.0), ("TOY", 2.0)]


def test_loading_the_same_prices_twice_changes_nothing(warehouse):
    parsed = prices([quote(source_row=1), quote(source_row=2, gpu_name="nope", instance_type="x")])
    load_prices(warehouse, "test", parsed, RUN)
    first = warehouse.execute("select count(*) from price_quote").fetchone()[0], len(rejects(warehouse, "price_quote"))
    load_prices(warehouse, "test", parsed, RUN)
    second = warehouse.execute("select count(*) from price_quote").fetchone()[0], len(rejects(warehouse, "price_quote"))
    assert first == second == (1, 1)


def test_a_later_day_keeps_the_earlier_observation(warehouse):
    load_prices(warehouse, "test", prices([quote(observed_at=date(2026, 11, 28))]), RUN)
    load_prices(warehouse, "test", prices([quote(usd_per_instance_hour=3.0)]), RUN)
    history = warehouse.execute("select observed_at, usd_per_gpu_hour from price_quote order by 1").fetchall()
    assert history == [(date(2026, 11, 28), 2.0), (date(2026, 11, 29), 3.0)]


def test_bad_benchmark_rows_are_rejected(warehouse):
    rows = [
        benchmark(source_row=1),
        benchmark(source_row=2, system="zero", value=0.0),
        benchmark(source_row=3, system="alien", gpu_name="Alien-1"),
        benchmark(source_row=4),
        benchmark(source_row=5, system="later", measured_at=date(2030, 1, 1)),
        benchmark(source_row=6, system="what", metric="vibes"),
    ]
    result = load_benchmarks(warehouse, "test", Parsed(benchmark_frame(rows)), RUN)
    assert (result.loaded, result.rejected) == (1, 5)
    assert [(r[0], r[1]) for r in rejects(warehouse, "benchmark_result")] == [
        (2, "value_positive"),
        (3, "unknown_gpu"),
        (4, "duplicate_key"),
        (5, "date_in_future"),
        (6, "known_metric"),
    ]


def test_bad_catalog_rows_are_rejected_and_the_rest_replace_the_reference(con):
    catalog = toy_catalog()
    catalog["gpu"] = pl.concat([catalog["gpu"], catalog["gpu"].with_columns(pl.lit(-5.0).alias("mem_bw_tbps"))])
    catalog["platform"] = pl.concat(
        [
            catalog["platform"],
            catalog["platform"]
            .head(1)
            .with_columns(pl.lit("ghost-8").alias("platform_id"), pl.lit("GHOST").alias("gpu_id")),
        ]
    )
    catalog["gpu_alias"] = pl.concat(
        [catalog["gpu_alias"], catalog["gpu_alias"].head(1).with_columns(pl.lit("toy").alias("alias"))]
    )
    load_reference(con, catalog, RUN)
    got = con.execute("select target_table, source_row, rule from rejected_row order by 1, 2").fetchall()
    assert got == [
        ("gpu", 2, "duplicate_key"),
        ("gpu", 2, "positive_mem_bw_tbps"),
        ("gpu_alias", 3, "duplicate_key"),
        ("platform", 3, "unknown_gpu"),
    ]
    assert con.execute("select count(*) from platform").fetchone()[0] == 2
    assert con.execute("select mem_bw_tbps from gpu").fetchall() == [(2.0,)]


def test_a_source_that_is_down_leaves_stored_rows_alone(warehouse):
    load_prices(warehouse, "test", prices([quote()]), RUN)
    record_source_failure(warehouse, "test", "price_quote", "HTTP 503 from https://example.test", RUN)
    assert warehouse.execute("select count(*) from price_quote").fetchone()[0] == 1
    assert rejects(warehouse, "price_quote")[-1][1] == "source_unusable"
