"""Like-for-like prices (issue 35, item 1), worked out by hand on the toy catalog and a second toy
GPU of the very same specs: each platform's market (073_platform_market.sql) and two platforms
at the same provider (warehouse/questions/like_for_like.py), with the words `compare` prints."""

from datetime import date

import polars as pl
import pytest

from tests.warehouse.test_decisions import DEMAND, JOB
from tests.warehouse.toy_catalog import toy_catalog
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference
from warehouse.questions.like_for_like import like_for_like
from warehouse.questions.market_text import like_for_like_lines
from warehouse.store import db

RUN = RunContext.new("like", date(2026, 11, 29))
BASES = ("on_demand", "spot", "reserved_1y", "reserved_3y", "owned")


def _catalog():
    catalog = toy_catalog()
    # TOY2: the toy GPU under another name, so any cost gap between the two is the prices'
    twin = catalog["gpu"].with_columns(gpu_id=pl.lit("TOY2"), name=pl.lit("Toy GPU twin"))
    platform = catalog["platform"].filter(pl.col("platform_id") == "toy-1").with_columns(
        platform_id=pl.lit("toy2-1"), gpu_id=pl.lit("TOY2"), name=pl.lit("one toy twin"))
    job = dict(JOB, workload_id="toy-demand", name="toy demand", token_unit="output tokens")
    fresh_days = pl.DataFrame([dict(name="price_fresh_days", value=30.0, unit="days", source="hand-made")],
                              schema=catalog["assumption"].schema)
    jobs = pl.DataFrame([job], schema_overrides=catalog["workload"].schema)
    return {**catalog, "gpu": pl.concat([catalog["gpu"], twin]),
            "assumption": pl.concat([catalog["assumption"], fresh_days]),
            "platform": pl.concat([catalog["platform"], platform]),
            # the one job: the catalog's other workloads would only add layouts to build
            "workload": pl.concat([catalog["workload"].clear(), jobs], how="diagonal_relaxed")}


def _quote(con, provider: str, gpu: str, gpus: int, usd: float, pricing: str, statistic: str | None = None,
           observed: date = RUN.run_date) -> None:
    con.execute(
        """insert into price_quote (provider, region, instance_type, gpu, gpu_name, gpus_per_instance,
                                    usd_per_instance_hour, usd_per_gpu_hour, pricing, currency, observed_at, source,
                                    source_ref, price_statistic, run_id)
           values (?, 'r1', ?, ?, ?, ?, ?, ? / ?, ?, 'USD', ?, 'test', 'hand', ?, 'like')""",
        [provider, f"{gpu.lower()}.{gpus}", gpu, gpu, gpus, usd, usd, gpus, pricing, observed, statistic],
    )


@pytest.fixture(scope="module")
def built():
    con = db.connect(":memory:")
    load_reference(con, _catalog(), RUN)
    # TOY on demand: $2.00 (a-cloud) and $2.50 (c-cloud); a marketplace's lowest listing prices nothing,
    # and a quote from 2026-10-01 is 59 days old on the night: stale (price_fresh_days 30)
    _quote(con, "a-cloud", "TOY", 1, 2.00, "on_demand")
    _quote(con, "c-cloud", "TOY", 1, 2.50, "on_demand")
    _quote(con, "z-market", "TOY", 1, 0.30, "on_demand", statistic="lowest")
    _quote(con, "old-cloud", "TOY", 1, 0.90, "on_demand", observed=date(2026, 10, 1))
    # TOY spot: a list price and a marketplace median of asks
    _quote(con, "a-cloud", "TOY", 1, 0.80, "spot")
    _quote(con, "m-market", "TOY", 1, 1.20, "spot", statistic="median")
    # TOY2 on demand: $3.00 (a-cloud), $1.50 and 4 GPUs for $8.00 = $2.00 (b-cloud); one reserved quote
    _quote(con, "a-cloud", "TOY2", 1, 3.00, "on_demand")
    _quote(con, "b-cloud", "TOY2", 1, 1.50, "on_demand")
    _quote(con, "b-cloud", "TOY2", 4, 8.00, "on_demand")
    _quote(con, "a-cloud", "TOY2", 1, 2.40, "reserved_1y")
    rebuild_estimates(con, RUN.run_id, RUN.run_date)
    yield con
    con.close()


def _market(con, platform: str, pricing: str) -> dict:
    rows = con.execute("select * from platform_market where platform_id = ? and pricing = ?",
                       [platform, pricing]).pl().to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def test_a_platforms_market_is_its_fresh_quotes_median_spread_and_providers(built):
    # TOY on demand: $2.00 and $2.50 -> median (2.00 + 2.50) / 2 = 2.25, spread 2.50 / 2.00 = 1.25;
    # the lowest listing ($0.30) counts nowhere, the stale $0.90 is counted apart
    toy = _market(built, "toy-1", "on_demand")
    assert (toy["quotes"], toy["providers"], toy["cheapest_provider"], toy["dearest_provider"]) == (
        2, 2, "a-cloud", "c-cloud")
    assert (toy["cheapest_usd_per_gpu_hour"], toy["median_usd_per_gpu_hour"], toy["max_usd_per_gpu_hour"]) == (
        2.00, pytest.approx(2.25), 2.50)
    assert toy["spread"] == pytest.approx(1.25)
    assert (toy["stale_quotes"], toy["stale_providers"], toy["single_quote"], toy["list_prices_only"]) == (
        1, "old-cloud", False, True)
    # every platform built from the GPU has the same market
    assert _market(built, "toy-ws-4", "on_demand") == {**toy, "platform_id": "toy-ws-4"}
    # TOY spot: $0.80 and a marketplace median of $1.20 -> median 1.00, spread 1.5, not list prices only
    spot = _market(built, "toy-1", "spot")
    assert (spot["median_usd_per_gpu_hour"], spot["spread"], spot["list_prices_only"]) == (
        pytest.approx(1.00), pytest.approx(1.5), False)
    # TOY2 on demand: $1.50, $2.00 (8.00 / 4), $3.00 -> median 2.00, spread 2.0, two providers
    twin = _market(built, "toy2-1", "on_demand")
    assert (twin["quotes"], twin["providers"], twin["median_usd_per_gpu_hour"], twin["spread"]) == (
        3, 2, pytest.approx(2.00), pytest.approx(2.0))
    # one reserved quote: a single quote, and says whose list price it is
    reserved = _market(built, "toy2-1", "reserved_1y")
    assert (reserved["single_quote"], reserved["single_provider"], reserved["single_quote_statistic"]) == (
        True, True, "list")
    # owning is a cost model, not a market
    assert built.execute("select count(*) from platform_market where pricing = 'owned'").fetchone() == (0,)


def test_two_platforms_are_compared_at_every_provider_that_prices_both(built):
    found = like_for_like(built, "toy-demand", ["toy-1", "toy2-1"], BASES)
    # only a-cloud prices both, on demand only: $2.00 against $3.00 per GPU-hour
    (pair,) = found["same_provider"]
    assert (pair["provider"], pair["pricing"], pair["a_usd_per_gpu_hour"], pair["b_usd_per_gpu_hour"]) == (
        "a-cloud", "on_demand", 2.00, 3.00)
    assert pair["price_ratio"] == pytest.approx(2 / 3)
    # the twins serve the 10,000 tokens/s on 3 GPUs each (test_decisions), 36 M tokens an hour: per
    # million tokens 3 x $2.00 / 36 against 3 x $3.00 / 36, the same 2/3 as the GPU-hours
    choice = built.execute("select platform_id, fleet_gpus from platform_choice where workload_id = 'toy-demand' "
                           "and pricing = 'on_demand' and platform_id <> 'toy-ws-4' order by platform_id").fetchall()
    assert choice == [("toy-1", 3), ("toy2-1", 3)]
    per_hour = DEMAND * 3600 / 1e6
    assert (pair["a_usd_per_unit"], pair["b_usd_per_unit"]) == (
        pytest.approx(3 * 2.00 / per_hour), pytest.approx(3 * 3.00 / per_hour))
    assert pair["cost_ratio"] == pytest.approx(2 / 3)
    # the cheapest rows are a-cloud's $2.00 against b-cloud's $1.50: 4/3 apart, the providers' doing
    (gap,) = [g for g in found["cheapest_gap"] if g["pricing"] == "on_demand"]
    assert (gap["a_provider"], gap["b_provider"], gap["cost_ratio"]) == ("a-cloud", "b-cloud", pytest.approx(4 / 3))
    lines = like_for_like_lines(found, {"kind": "serving", "token_unit": "output tokens"})
    said = " ".join(" ".join(lines).split())
    assert ("on_demand, a-cloud: $2.00 against $3.00 per GPU-hour (0.67x), $0.17 against $0.25 per million output "
            "tokens (0.67x)") in said
    assert "the cheapest rows above are 1.33x apart (a-cloud against b-cloud) but 0.67x at a-cloud" in said
    assert "spot: no provider prices both tonight" in said
    assert "Careful: toy2-1 on reserved_1y rests on a single quote (a-cloud's list price), not a market." in lines
