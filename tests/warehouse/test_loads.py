"""Stage -> validate -> merge: bad rows land in rejected_row with source, row and rule;
good rows load; a payload replaces exactly the rows it produced before, nothing else."""

from datetime import date
from pathlib import Path

import polars as pl
import pytest

from sources.kit.contracts import PRICE_QUOTE, conform
from sources.kit.spec import Parsed, Reject
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from tests.warehouse.warehouse_copies import copy_of, keep
from warehouse.loading.load import RunContext, load_benchmarks, load_prices, record_source_failure
from warehouse.loading.reference_load import load_reference
from warehouse.store import db, settings

RUN = RunContext.new("2026-11-29-test", date(2026, 11, 29))
DAY_28 = RunContext.new("2026-11-28-test", date(2026, 11, 28))
QUOTES = "quotes_file/2026-11-29/quotes.csv"


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


def prices(rows, schema=None):
    frame = pl.DataFrame(rows, schema=schema or {k: v for k, v in PRICE_QUOTE.items() if k in rows[0]})
    return Parsed(conform(frame, PRICE_QUOTE))


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> Path:
    """The toy catalog loaded once, kept in a file: each test loads into its own copy."""
    con = db.connect(":memory:")
    try:
        load_reference(con, toy_catalog(), RUN)
        return keep(con, tmp_path_factory.mktemp("loads") / "toy.duckdb")
    finally:
        con.close()


@pytest.fixture
def warehouse(kept):
    """A private warehouse holding the toy catalog and nothing else."""
    con = copy_of(kept)
    yield con
    con.close()


def rejects(con, table):
    return con.execute(
        "select source_row, rule, detail from rejected_row where target_table = ? order by source_row, rule",
        [table],
    ).fetchall()


def stored(con, sql="select instance_type, usd_per_gpu_hour from price_quote order by all"):
    return con.execute(sql).fetchall()


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
    result = load_prices(warehouse, "test", parsed, RUN, [QUOTES])
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
    assert got[2][2] == "test row 4: 'Z9000': no catalog accelerator 'Z9000' (add it to gpu.csv)"
    assert stored(warehouse, "select gpu, usd_per_gpu_hour from price_quote") == [("TOY", 2.0), ("TOY", 2.0)]


def test_loading_the_same_payload_twice_changes_nothing(warehouse):
    parsed = prices([quote(source_row=1), quote(source_row=2, gpu_name="nope", instance_type="x")])
    load_prices(warehouse, "test", parsed, RUN, [QUOTES])
    first = len(stored(warehouse)), len(rejects(warehouse, "price_quote"))
    load_prices(warehouse, "test", parsed, RUN, [QUOTES])
    assert (len(stored(warehouse)), len(rejects(warehouse, "price_quote"))) == first == (1, 1)


def test_each_days_payload_keeps_its_own_observation(warehouse):
    load_prices(warehouse, "test", prices([quote(observed_at=date(2026, 11, 28))]), DAY_28,
                ["test/2026-11-28/quotes.csv"])
    load_prices(warehouse, "test", prices([quote(usd_per_instance_hour=3.0)]), RUN, ["test/2026-11-29/quotes.csv"])
    history = stored(warehouse, "select observed_at, usd_per_gpu_hour from price_quote order by 1")
    assert history == [(date(2026, 11, 28), 2.0), (date(2026, 11, 29), 3.0)]


def test_a_corrected_file_removes_the_rows_it_no_longer_has_even_a_providers_only_row(warehouse):
    # probe 5: "acme" had one row that day; the corrected file drops it and keeps "bolt"
    first = prices([quote(), quote(provider="bolt", source_row=2)])
    load_prices(warehouse, "test", first, RUN, [QUOTES])
    load_prices(warehouse, "test", prices([quote(provider="bolt")]), RUN, [QUOTES])
    assert stored(warehouse, "select provider from price_quote") == [("bolt",)]


def test_another_days_file_with_the_same_provider_and_date_leaves_the_first_alone(warehouse):
    # probe 2: quotes observed 2026-11-20 ingested on the 28th, another file ingested on the 29th
    old_quote = dict(observed_at=date(2026, 11, 20))
    load_prices(warehouse, "test", prices([quote(**old_quote)]), DAY_28, ["test/2026-11-28/a.csv"])
    load_prices(warehouse, "test", prices([quote(instance_type="toy.2x", **old_quote)]), RUN, ["test/2026-11-29/b.csv"])
    assert stored(warehouse, "select instance_type from price_quote order by 1") == [("toy.1x",), ("toy.2x",)]
    # and replaying the 28th changes nothing
    load_prices(warehouse, "test", prices([quote(**old_quote)]), DAY_28, ["test/2026-11-28/a.csv"])
    assert len(stored(warehouse)) == 2


def test_benchmark_runs_are_windowed_by_payload_not_by_file_name(warehouse):
    # probe 3: a different runs.csv ingested another day keeps the earlier measurements
    load_benchmarks(warehouse, "test", Parsed(benchmark_frame([benchmark()])), DAY_28, ["test/2026-11-28/runs.csv"])
    later = benchmark(system="other toy", value=7000.0)
    load_benchmarks(warehouse, "test", Parsed(benchmark_frame([later])), RUN, ["test/2026-11-29/runs.csv"])
    assert warehouse.execute("select value from benchmark_result order by 1").fetchall() == [(7000.0,), (8000.0,)]


def test_rows_from_before_payload_ids_are_replaced_when_their_day_is_loaded_again(warehouse):
    warehouse.execute(
        "insert into price_quote (provider, instance_type, gpu, source, observed_at, run_id, usd_per_gpu_hour) "
        "values ('acme', 'legacy', 'TOY', 'test', '2026-11-29', '2026-11-29-000000000000', 1.0)"
    )
    load_prices(warehouse, "test", prices([quote()]), RUN, [QUOTES])
    assert stored(warehouse, "select instance_type from price_quote") == [("toy.1x",)]


@pytest.mark.parametrize(
    ("usd", "rule"),
    [
        (0.0000001, "implausible_price_low"),  # probe 7: became the cheapest GPU
        (25.0, "implausible_price_high"),  # probe 7: cents read as dollars; the toy's ceiling is 10000 USD / 500 h
    ],
)
def test_prices_a_gpu_cannot_cost_are_flagged_not_trusted(warehouse, usd, rule):
    result = load_prices(warehouse, "test", prices([quote(usd_per_instance_hour=usd)]), RUN, [QUOTES])
    assert result.loaded == 0
    ((_, got, detail),) = rejects(warehouse, "price_quote")
    assert got == rule and "TOY GPU-hour" in detail


def test_dates_and_numbers_no_later_step_can_hold_are_rejected_per_row(warehouse):
    # probe 4 and 6: an integer date became year 57440 and crashed every later load; inf loaded
    schema = {**PRICE_QUOTE, "observed_at": pl.Int64}
    rows = [quote(source_row=1, observed_at=20260101), quote(source_row=2, instance_type="toy.2x", observed_at=20601)]
    parsed = prices(rows, schema={k: schema[k] for k in rows[0]})
    parsed.rows = parsed.rows.with_columns(pl.col("observed_at").cast(pl.Date))
    result = load_prices(warehouse, "test", parsed, RUN, [QUOTES])
    assert (result.loaded, result.rejected) == (1, 1)
    ((row, rule, detail),) = rejects(warehouse, "price_quote")
    assert (row, rule) == (1, "unparseable_date") and "observed_at" in detail

    runs = [benchmark(value=float("inf")), benchmark(system="nan", value=float("nan")), benchmark(system="big",
                                                                                                   value=1e300)]
    result = load_benchmarks(warehouse, "test", Parsed(benchmark_frame(runs)), RUN, ["test/2026-11-29/runs.csv"])
    assert (result.loaded, result.rejected) == (0, 3)
    assert [r[1] for r in rejects(warehouse, "benchmark_result")] == [
        "exceeds_hardware_peak", "non_finite_value", "non_finite_value"
    ]


def test_bad_benchmark_rows_are_rejected(warehouse):
    rows = [
        benchmark(source_row=1),
        benchmark(source_row=2, system="zero", value=0.0),
        benchmark(source_row=3, system="alien", gpu_name="Alien-1"),
        benchmark(source_row=4),
        benchmark(source_row=5, system="later", measured_at=date(2030, 1, 1)),
        benchmark(source_row=6, system="what", metric="vibes"),
        benchmark(source_row=7, system="typo", workload_id="toy-pretrian"),
        # a serving rate would calibrate a training job: it calibrated an Offline workload with a Server rate
        benchmark(source_row=8, system="served", scenario="Server"),
    ]
    result = load_benchmarks(warehouse, "test", Parsed(benchmark_frame(rows)), RUN, ["test/2026-11-29/runs.csv"])
    assert (result.loaded, result.rejected) == (1, 7)
    assert [(r[0], r[1]) for r in rejects(warehouse, "benchmark_result")] == [
        (2, "value_positive"),
        (3, "unknown_gpu"),
        (4, "duplicate_key"),
        (5, "date_in_future"),
        (6, "known_metric"),
        (7, "unknown_workload"),
        (8, "scenario_mismatch"),
    ]
    detail = rejects(warehouse, "benchmark_result")[-1][2]
    assert detail.endswith("scenario Server is not the scenario of toy-pretrain: its results are measured as "
                           "training (give scenario training, or the workload that was measured)")


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


def test_a_catalog_workload_with_a_figure_no_model_can_use_is_rejected_by_row_and_rule(con):
    """A user's workload row with a NaN prompt, or a negative demand, loaded silently (a demand of
    1e30 crashed the night: tests/warehouse/test_decisions.py). Each is now its row's reject."""
    catalog = toy_catalog()
    serving = catalog["workload"].filter(pl.col("kind") == "serving").head(1)
    catalog["workload"] = pl.concat([
        catalog["workload"],
        serving.with_columns(pl.lit("nan-prompt").alias("workload_id"), pl.lit(float("nan")).alias("input_len")),
        serving.with_columns(pl.lit("inf-model").alias("workload_id"), pl.lit(float("inf")).alias("tpot_ms")),
        serving.with_columns(pl.lit("negative").alias("workload_id"), pl.lit(-1000.0).alias("demand_tokens_per_s")),
    ])
    load_reference(con, catalog, RUN)
    first_bad = catalog["workload"].height - 2  # 1-based row numbers of the three added rows
    got = con.execute("""select source_row, rule, detail from rejected_row where target_table = 'workload'
                         order by source_row""").fetchall()
    assert got == [
        (first_bad, "non_finite_value", f"workload.csv row {first_bad}: input_len is not a finite number"),
        (first_bad + 1, "non_finite_value", f"workload.csv row {first_bad + 1}: tpot_ms is not a finite number"),
        (first_bad + 2, "positive_demand_tokens_per_s",
         f"workload.csv row {first_bad + 2}: demand_tokens_per_s -1000.0 must be a positive number"),
    ]
    kept = {r[0] for r in con.execute("select workload_id from workload").fetchall()}
    assert kept == set(toy_catalog()["workload"]["workload_id"])


def test_a_serving_workload_whose_requests_overflow_its_models_context_is_rejected(con):
    """Prompt plus output past the model's max_context (a 1e12-token output of Llama-2, whose
    window is 4,096) was costed as a fleet needing petabytes per GPU; the row is now refused."""
    catalog = toy_catalog()
    catalog["model"] = catalog["model"].with_columns(pl.lit(2048, dtype=pl.Int64).alias("max_context"))
    serving = catalog["workload"].filter(pl.col("kind") == "serving").head(1)
    catalog["workload"] = pl.concat([
        catalog["workload"],
        # 1,600 in + 500 out = 2,100 > 2,048; 1,600 in + outputs capped at 448 (mean 300): 2,048, which fits
        serving.with_columns(pl.lit("too-long").alias("workload_id"), pl.lit(1600.0).alias("input_len"),
                             pl.lit(500.0).alias("output_len"), pl.lit(None, dtype=pl.Float64).alias("max_output_len")),
        serving.with_columns(pl.lit("capped").alias("workload_id"), pl.lit(1600.0).alias("input_len"),
                             pl.lit(300.0).alias("output_len"), pl.lit(448.0).alias("max_output_len")),
    ])
    load_reference(con, catalog, RUN)
    row = catalog["workload"].height - 1  # 1-based: the first added row
    model = serving["model_id"][0]
    assert con.execute("select source_row, rule, detail from rejected_row").fetchall() == [
        (row, "context_too_long", f"workload.csv row {row}: {model} takes at most 2048 tokens of prompt and output "
                                  "(max_context), and too-long asks 2100"),
    ]
    kept = {r[0] for r in con.execute("select workload_id from workload").fetchall()}
    assert "capped" in kept and "too-long" not in kept


def test_a_source_that_is_down_leaves_stored_rows_alone(warehouse):
    load_prices(warehouse, "test", prices([quote()]), RUN, [QUOTES])
    record_source_failure(warehouse, "test", "price_quote", "HTTP 503 from https://example.test", RUN)
    assert len(stored(warehouse)) == 1
    assert rejects(warehouse, "price_quote")[-1][1] == "source_unusable"


def test_a_source_with_no_valid_row_loses_nothing_of_the_next_sources_in_the_same_night(tmp_path):
    """A write session lands every source in one transaction (on a lake; per load on a file),
    and writers attach a file with row groups of 8,192 rows (settings.WRITER_ROW_GROUP_SIZE).
    DuckDB 1.5.5 keeps none of an insert that fills a row group when an insert that read an
    empty frame went first into the same table in that transaction, so a source whose rows
    were all rejected must insert nothing at all."""
    con = db.connect(str(tmp_path / "w.duckdb"))
    try:
        with db.session_transaction(con):
            load_reference(con, toy_catalog(), RUN)
            unknown = load_prices(con, "down", prices([quote(gpu_name="Z9000")]), RUN, ["down/quotes.csv"])
            rows = 2 * settings.WRITER_ROW_GROUP_SIZE
            many = [quote(instance_type=f"toy.{i}", source_row=i + 1) for i in range(rows)]
            loaded = load_prices(con, "test", prices(many), RUN, [QUOTES])
        assert (unknown.loaded, unknown.rejected, loaded.loaded) == (0, 1, len(many))
        assert con.execute("select count(*) from price_quote").fetchone() == (len(many),)
    finally:
        con.close()
