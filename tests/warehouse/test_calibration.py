"""Calibration falls back level by level: same workload and GPU (measured), same family,
other GPUs, same kind and scenario, same kind, and finally the documented defaults."""

from datetime import date

import polars as pl
import pytest

from sources.base import Parsed
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from warehouse.load import RunContext, load_benchmarks
from warehouse.rebuild import rebuild_estimates
from warehouse.reference_load import load_reference

RUN = RunContext.new("calibration", date(2026, 11, 29))


@pytest.fixture
def calibrated(con):
    catalog = toy_catalog()
    toy = catalog["gpu"]
    catalog["gpu"] = pl.concat(
        [
            toy,
            toy.with_columns(pl.lit("TOY2").alias("gpu_id"), pl.lit("Toy 2").alias("name")),
            toy.with_columns(pl.lit("OTHER").alias("gpu_id"), pl.lit("other").alias("family")),
        ]
    )
    one = catalog["platform"].filter(pl.col("platform_id") == "toy-1")
    catalog["platform"] = pl.concat(
        [
            catalog["platform"],
            one.with_columns(pl.lit("toy2-1").alias("platform_id"), pl.lit("TOY2").alias("gpu_id")),
            one.with_columns(pl.lit("other-1").alias("platform_id"), pl.lit("OTHER").alias("gpu_id")),
        ]
    )
    catalog["gpu_alias"] = pl.concat(
        [
            catalog["gpu_alias"],
            pl.DataFrame({"alias": ["TOY2", "OTHER"], "gpu_id": ["TOY2", "OTHER"], "note": [None, None]}),
        ]
    )
    load_reference(con, catalog, RUN)
    rebuild_estimates(con, "before", RUN.run_date)
    model = con.execute(
        "select tokens_per_s from topology_estimate where workload_id = 'toy-offline' and platform_id = 'toy-1'"
    ).fetchone()[0]
    # one measurement: toy-offline on one TOY ran at twice what the model says
    row = benchmark(benchmark="toy-offline", workload_id="toy-offline", scenario="Offline", value=2 * model)
    load_benchmarks(con, "test", Parsed(benchmark_frame([row])), RUN)
    rebuild_estimates(con, "after", RUN.run_date)
    return con


def choice(con, workload, platform):
    return con.execute(
        "select level, confidence, factor from calibration_choice where workload_id = ? and platform_id = ?",
        [workload, platform],
    ).fetchone()


def test_each_estimate_uses_the_most_specific_calibration_with_data(calibrated):
    assert choice(calibrated, "toy-offline", "toy-1") == (1, "measured", pytest.approx(2.0))
    assert choice(calibrated, "toy-offline", "toy2-1") == (2, "calibrated", pytest.approx(2.0))  # same family
    assert choice(calibrated, "toy-offline", "other-1") == (3, "calibrated", pytest.approx(2.0))  # other GPUs
    # another serving scenario on the same family: same kind of workload, same family
    assert choice(calibrated, "toy-server", "toy2-1")[:2] == (6, "calibrated")
    assert choice(calibrated, "toy-server", "other-1")[:2] == (7, "calibrated")
    # no benchmark of any training workload: the documented defaults
    assert choice(calibrated, "toy-pretrain", "toy-1") == (0, "default", 1.0)


def test_the_calibrated_estimate_reproduces_the_measurement(calibrated):
    measured, model = calibrated.execute(
        """select tokens_per_s, model_tokens_per_s from topology_estimate
           where workload_id = 'toy-offline' and platform_id = 'toy-1'"""
    ).fetchone()
    assert measured == pytest.approx(2 * model)


def test_the_backtest_predicts_a_gpu_only_from_others(calibrated):
    # the only measured GPU has no other GPU to learn from: it cannot be backtested
    assert calibrated.execute("select count(loao_factor) from backtest").fetchone()[0] == 0
    assert calibrated.execute("select in_sample_ape from backtest").fetchone()[0] == pytest.approx(0.0)
