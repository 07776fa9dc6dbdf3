"""Calibration falls back level by level (the measurement itself, same GPU at other counts,
same family, other GPUs, same scenario, same kind), uses a level only where the held-out
backtest shows it helps, and the backtest never lets a GPU learn from itself."""

import math
from datetime import date

import polars as pl
import pytest

from sources.kit.spec import Parsed
from tests.flows.cli_helpers import query
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext, load_benchmarks
from warehouse.loading.reference_load import load_reference
from warehouse.store import db

RUN = RunContext.new("calibration", date(2026, 11, 29))
# every copy of the toy GPU has the toy's specs, so the model rates them alike
GPUS = {"TOY": "toy", "TOY2": "toy", "TOY3": "toy", "OTHER": "other", "LONE": "lone"}


def _catalog(min_points: int) -> dict[str, pl.DataFrame]:
    catalog = toy_catalog()
    toy = catalog["gpu"]
    catalog["gpu"] = pl.concat(
        [toy]
        + [
            toy.with_columns(pl.lit(gpu).alias("gpu_id"), pl.lit(gpu).alias("name"), pl.lit(family).alias("family"))
            for gpu, family in GPUS.items()
            if gpu != "TOY"
        ]
    )
    one = catalog["platform"].filter(pl.col("platform_id") == "toy-1")
    catalog["platform"] = pl.concat(
        [catalog["platform"]]
        + [
            one.with_columns(pl.lit(f"{gpu.lower()}-1").alias("platform_id"), pl.lit(gpu).alias("gpu_id"))
            for gpu in GPUS
            if gpu != "TOY"
        ]
    )
    catalog["gpu_alias"] = pl.concat(
        [
            catalog["gpu_alias"],
            pl.DataFrame({"alias": list(GPUS)[1:], "gpu_id": list(GPUS)[1:], "note": [None] * (len(GPUS) - 1)}),
        ]
    )
    catalog["assumption"] = catalog["assumption"].with_columns(
        pl.when(pl.col("name") == "min_backtest_points")
        .then(pl.lit(float(min_points)))
        .otherwise(pl.col("value"))
        .alias("value")
    )
    return catalog


@pytest.fixture(scope="module")
def rates() -> dict[str, float]:
    """The uncalibrated rate of toy-offline on one GPU of each kind (efficiencies differ by
    family), from the toy built once without measurements: no test's measurements or minimum
    point count change it, so the tests share it and each builds its own warehouse once."""
    con = db.connect(":memory:")
    try:
        load_reference(con, _catalog(1), RUN)
        rebuild_estimates(con, "before", RUN.run_date)
        return dict(con.execute(
            "select platform_id, tokens_per_s from topology_estimate where workload_id = 'toy-offline' and n_gpus = 1"
        ).fetchall())
    finally:
        con.close()


def _warehouse(con, min_points: int, ratios: dict[str, float], rates: dict[str, float]):
    """The toy in which toy-offline on one GPU of each named kind ran at `ratio` x what the model says."""
    load_reference(con, _catalog(min_points), RUN)
    rows = [
        benchmark(
            benchmark="toy-offline", workload_id="toy-offline", scenario="Offline", gpu_name=gpu,
            value=ratio * rates[f"{gpu.lower()}-1"], source_row=i,
        )
        for i, (gpu, ratio) in enumerate(ratios.items(), start=1)
    ]
    load_benchmarks(con, "test", Parsed(benchmark_frame(rows)), RUN, ["test/2026-11-29/runs.csv"])
    rebuild_estimates(con, "after", RUN.run_date)
    return con


def choice(con, workload, platform, n_gpus=1):
    return con.execute(
        """select level, confidence, factor from calibration_choice
           where workload_id = ? and platform_id = ? and n_gpus = ?""",
        [workload, platform, n_gpus],
    ).fetchone()


def test_each_estimate_uses_the_most_specific_level_the_backtest_trusts(con, rates):
    # one point is enough evidence here, and every GPU ran at 2x the model: every level helps
    con = _warehouse(con, 1, {"TOY": 2.0, "TOY2": 2.0, "OTHER": 2.0}, rates)
    assert choice(con, "toy-offline", "toy-1") == (1, "measured", pytest.approx(2.0))
    # a count nobody measured is not "measured"; one count per GPU leaves level 2 untested
    assert choice(con, "toy-offline", "toy-ws-4", 4)[:2] == (3, "calibrated")
    assert choice(con, "toy-offline", "toy3-1") == (3, "calibrated", pytest.approx(2.0))  # same family
    assert choice(con, "toy-offline", "lone-1") == (4, "calibrated", pytest.approx(2.0))  # other GPUs
    # another serving scenario: trust is judged per scenario, and no held-out Server point shows
    # that Offline's factor helps Server, so Server keeps the documented efficiencies
    assert choice(con, "toy-server", "toy3-1") == (0, "default", 1.0)
    assert choice(con, "toy-server", "lone-1") == (0, "default", 1.0)
    # no benchmark of any training workload: the documented efficiencies
    assert choice(con, "toy-pretrain", "toy-1") == (0, "default", 1.0)


def test_a_level_the_backtest_shows_making_things_worse_is_skipped(con, rates):
    # TOY ran at 2x the model, TOY2 at 0.5x: each predicted from the other is off by 75%, while
    # the uncalibrated model is off by 50% and 100%: the family level does not help
    con = _warehouse(con, 1, {"TOY": 2.0, "TOY2": 0.5}, rates)
    trust = dict(con.execute("select level, trusted from calibration_trust where kind = 'serving:Offline'").fetchall())
    assert trust[3] is False
    assert choice(con, "toy-offline", "toy3-1") == (0, "default", 1.0)
    assert choice(con, "toy-offline", "toy2-1") == (1, "measured", pytest.approx(0.5))


def test_a_family_level_worse_than_learning_from_every_gpu_is_skipped(con, rates):
    # TOY at 2x the model, its sibling TOY2 at 3x, OTHER and LONE at 2x. From its sibling alone
    # (level 3) TOY is off by 50% and TOY2 by 33% (median 41.7%): better than uncalibrated (50%,
    # 67%), worse than learning from every other GPU (level 4): TOY from 3, 2, 2 (geometric mean
    # 2.289) off by 14.5%, TOY2 from 2, 2, 2 off by 33.3% (median 23.9%)
    con = _warehouse(con, 1, {"TOY": 2.0, "TOY2": 3.0, "OTHER": 2.0, "LONE": 2.0}, rates)
    trust = dict(con.execute("select level, trusted from calibration_trust where kind = 'serving:Offline'").fetchall())
    assert (trust[3], trust[4]) == (False, True)
    # TOY3, the family's unmeasured card, is calibrated on every GPU, not on its siblings (2.449)
    assert choice(con, "toy-offline", "toy3-1") == (4, "calibrated", pytest.approx((2.0 * 3.0 * 2.0 * 2.0) ** 0.25))


def test_fewer_points_than_the_minimum_leave_everything_uncalibrated_and_unvalidated(con, rates):
    con = _warehouse(con, 5, {"TOY": 2.0, "TOY2": 2.0, "OTHER": 2.0}, rates)
    assert choice(con, "toy-offline", "toy-1") == (1, "measured", pytest.approx(2.0))
    assert choice(con, "toy-offline", "toy3-1") == (0, "default", 1.0)
    bands = con.execute(
        "select level, error_p50, basis from error_band where kind = 'serving' and level in (0, 1) order by level"
    ).fetchall()
    assert bands == [(0, None, "unvalidated: 3 points"), (1, None, "unvalidated: 3 points")]


def test_the_calibrated_estimate_reproduces_the_measurement(con, rates):
    con = _warehouse(con, 5, {"TOY": 2.0}, rates)
    measured, model = con.execute(
        """select tokens_per_s, model_tokens_per_s from topology_estimate
           where workload_id = 'toy-offline' and platform_id = 'toy-1' and n_gpus = 1"""
    ).fetchone()
    assert measured == pytest.approx(2 * model)


def test_the_backtest_predicts_a_gpu_only_from_others(con, rates):
    # the only measured GPU has no other GPU to learn from: it cannot be backtested
    con = _warehouse(con, 1, {"TOY": 2.0}, rates)
    assert con.execute("select count(loao_factor) from backtest").fetchone()[0] == 0
    assert con.execute("select in_sample_ape from backtest").fetchone()[0] == pytest.approx(0.0)


def test_every_bundled_result_loads_and_has_a_layout_the_model_can_rate(offline_data):
    """All 466 bundled results (every accelerator's) load with nothing rejected, and each has the
    platform and the fitting layout a calibration point and `gpucalc predict` are made from."""
    [(loaded,)] = query(offline_data, "select count(*) from benchmark_result where source like 'bundled%'")
    [(rejected,)] = query(offline_data, "select count(*) from rejected_row where source like 'bundled%'")
    unmodelled = query(offline_data, """select b.gpu, b.workload_id, b.gpu_count from benchmark_result b
                                        left join case_layout m using (source, source_ref, source_row)
                                        where m.fits is not true""")
    assert (loaded, rejected, unmodelled) == (466, 0, [])


def test_a_serving_result_measures_the_system_it_ran_on_and_k_of_them_serve_k_times(offline_data):
    """MLPerf's 16- and 32-GPU H100 Llama-2-70B Offline results (v5.1) ran as 8-GPU systems full
    of replicas: both measure the 8-GPU system, which is published at the geometric mean of their
    per-GPU rates, "measured"; 16 and 32 GPUs are two and four such systems side by side, at
    twice and four times its rate, priced as whole 8-GPU systems that need no link between them.
    Llama-3.1-405B Server's 16-GPU result was compared with a 16-GPU replica spanning two
    systems, the very deployment the 16-GPU estimate publishes: measured too."""
    measured = query(offline_data, """select gpu_count, value / gpu_count from benchmark_result
                                      where workload_id = 'llama2-70b-offline' and gpu = 'H100-SXM'
                                        and round = 'v5.1'
                                      order by gpu_count""")
    rows = {n: rest for n, *rest in query(
        offline_data, """select n_gpus, tokens_per_s, confidence, layout, unit_gpus, deployments from topology_estimate
                         where workload_id = 'llama2-70b-offline' and platform_id = 'hgx-h100-8'
                           and dtype = 'fp8'""")}
    [spanning] = query(offline_data, """select confidence, layout from topology_estimate
                                        where workload_id = 'llama31-405b-server' and platform_id = 'hgx-h100-8'
                                          and n_gpus = 16""")
    assert [n for n, _ in measured] == [16, 32]
    system = math.sqrt(measured[0][1] * measured[1][1]) * 8  # 3,897.0 and 3,902.5 per GPU
    assert rows[8][:2] == [pytest.approx(system, rel=1e-9), "measured"]
    assert rows[16] == [pytest.approx(2 * system, rel=1e-9), "measured",
                        "tp2 pp1 x8 replicas in 2 systems, batch 1024", 8, 2]
    assert rows[32][:2] == [pytest.approx(4 * system, rel=1e-9), "measured"] and rows[32][3:] == [8, 4]
    assert spanning[0] == "measured" and spanning[1].startswith("tp8 pp2 x1 replicas, batch ")


def test_deployments_of_one_count_are_weighed_by_what_their_calibration_vouches_for(offline_data):
    """Llama-2-70B Interactive on MI300X was measured on 8 GPUs (1,080.7 tokens/s per GPU). At 16
    GPUs, one tp8 pp2 replica spanning two systems rests on the documented efficiencies alone
    (1,203.7 per GPU, ±58% at p90), two measured systems on their measurement (±1.4%):
    1,203.7 / 1.58 < 1,080.7 / 1.01, so 16 GPUs are two measured systems."""
    rows = {n: rest for n, *rest in query(
        offline_data, """select n_gpus, tokens_per_s_per_gpu, confidence, layout from topology_estimate
                         where workload_id = 'llama2-70b-interactive' and platform_id = 'mi300x-8'""")}
    ((measured,),) = query(
        offline_data, """select geometric_mean(value / gpu_count) from benchmark_result
                         where workload_id = 'llama2-70b-interactive' and gpu = 'MI300X' and round = 'v5.1'""")
    assert rows[8][:2] == [pytest.approx(measured, rel=0.01), "measured"]
    assert rows[16][:2] == [pytest.approx(rows[8][0], rel=1e-12), "measured"]
    assert rows[16][2].startswith("tp2 pp1 x8 replicas in 2 systems")


def test_a_calibration_level_too_thin_for_a_band_counts_the_widest_band_its_kind_earned(offline_copy):
    """The test above with the measured level's band unvalidated (too few points): the two
    measured systems may no longer count on ±1.4%, but on the widest band serving has earned:
    the same kind of workload on the same GPU family (level 7), ±64.1%, the 90th percentile of
    its 21 held-out Interactive errors, at position 0.9 x 20 = 18 their third largest: H100 SXM
    at 64.12%, below the two MI300X points (214% and 201%); wider than the documented
    efficiencies' ±60.5% over all 199 serving points. The one replica spanning both systems
    keeps the band of the level it rests on, the same workload on the same GPU family (level 3)."""
    from warehouse.store.db import model_files

    con = db.connect(str(offline_copy / "warehouse.duckdb"))
    try:
        con.execute("update error_band set error_p90 = null where kind = 'serving' and level = 1")
        for name, sql in model_files():
            if name == "063_serving_factor_calibrated.sql":
                con.execute(sql)
        ((widest, default, level_3),) = con.execute(
            """select max(error_p90), max(error_p90) filter (where level = 0), max(error_p90) filter (where level = 3)
               from error_band where kind = 'serving'"""
        ).fetchall()
        bands = dict(con.execute(
            """select n_gpus, band_p90 from serving_factor_calibrated
               where workload_id = 'llama2-70b-interactive' and platform_id = 'mi300x-8' and case_index is null
                 and n_gpus in (8, 16)""").fetchall())
    finally:
        con.close()
    assert widest == pytest.approx(0.64120, abs=1e-5) and default == pytest.approx(0.60505, abs=1e-5)
    assert bands == {8: widest, 16: pytest.approx(level_3)}


def test_systems_side_by_side_rent_as_separate_instances_and_a_spanning_replica_does_not(offline_copy):
    """A provider whose 8-GPU H100 instances are not linked to each other can run 16 GPUs of
    Llama-2-70B Offline replicas (two instances, two systems), but not Llama-3.1-405B Server's
    16-GPU replica, whose pipeline stages talk across the two systems."""
    con = db.connect(str(offline_copy / "warehouse.duckdb"))
    try:
        con.execute(
            """insert into price_quote (provider, region, instance_type, gpu, gpu_name, gpus_per_instance,
                                        usd_per_instance_hour, usd_per_gpu_hour, pricing, currency, observed_at,
                                        source, source_ref, run_id)
               values ('unlinked', 'r1', '8x-h100', 'H100-SXM', 'H100 SXM', 8, 16.0, 2.0, 'on_demand', 'USD',
                       date '2026-11-29', 'test', 'hand', 'unlinked')""")
        con.execute("insert into provider_capacity (provider, gpu_id, interconnect, source) "
                    "values ('unlinked', 'H100-SXM', 'none', 'test')")
        rebuild_estimates(con, "unlinked", date(2026, 11, 29))
        rented = con.execute(
            """select workload_id, n_gpus, instances from estimate
               where provider = 'unlinked' and platform_id = 'hgx-h100-8' and n_gpus = 16
                 and workload_id in ('llama2-70b-offline', 'llama31-405b-server')""").fetchall()
    finally:
        con.close()
    assert rented == [("llama2-70b-offline", 16, 2.0)]
