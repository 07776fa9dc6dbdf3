"""`gpucalc backtest` sets the model beside a spreadsheet (the nearest measured result of the
same workload on another accelerator, scaled by the FLOP/s or bandwidth ratio) and counts how
many held-out truths its stated bands hold, per class (063_backtest_baseline.sql)."""

from __future__ import annotations

import json
from datetime import date

import polars as pl
import pytest

from sources.kit.spec import Parsed
from tests.flows.cli_helpers import gpucalc
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext, load_benchmarks
from warehouse.loading.reference_load import load_reference
from warehouse.questions.backtest_figures import figures
from warehouse.questions.backtest_text import render_figures
from warehouse.store import db

RUN = RunContext.new("baseline", date(2026, 11, 29))
TRAINING = "training (LoRA and pretraining)"
CARDS = "PCIe, NVL and workstation cards (serving)"
SXM = "Offline / Server on SXM-class accelerators"


def _catalog() -> dict[str, pl.DataFrame]:
    """The toy (1000 dense TFLOP/s, 2 TB/s) and TOY2, a PCIe card with twice the FLOP/s and
    1.5x the bandwidth; each on a 1-GPU and a 4-GPU platform. toy-offline's prompts (250
    tokens) are shorter than its outputs (1000): decode-bound, scaled by bandwidth."""
    catalog = toy_catalog()
    toy = catalog["gpu"]
    catalog["gpu"] = pl.concat([
        toy,
        toy.with_columns(gpu_id=pl.lit("TOY2"), name=pl.lit("TOY2"), bf16_tflops=pl.lit(2000.0),
                         mem_bw_tbps=pl.lit(3.0), form_factor=pl.lit("PCIe Gen5 card")),
    ])
    platforms = catalog["platform"]
    catalog["platform"] = pl.concat([
        platforms,
        platforms.with_columns(platform_id=pl.col("platform_id").str.replace("toy", "toy2"), gpu_id=pl.lit("TOY2")),
    ])
    catalog["gpu_alias"] = pl.concat([
        catalog["gpu_alias"], pl.DataFrame({"alias": ["TOY2"], "gpu_id": ["TOY2"], "note": [None]}),
    ])
    catalog["workload"] = catalog["workload"].with_columns(
        input_len=pl.when(pl.col("workload_id") == "toy-offline").then(250.0).otherwise(pl.col("input_len"))
    )
    return catalog


# (workload, scenario, GPU, GPU count, tokens/s of the whole system)
MEASURED = [
    ("toy-pretrain", "training", "TOY", 1, 8000.0),
    ("toy-pretrain", "training", "TOY", 4, 28000.0),  # 7000 per GPU
    ("toy-pretrain", "training", "TOY2", 1, 12000.0),
    ("toy-offline", "Offline", "TOY", 1, 1000.0),
    ("toy-offline", "Offline", "TOY2", 1, 1200.0),
    ("toy-lora", "training", "TOY", 1, 5000.0),  # no other accelerator ran it
]


@pytest.fixture(scope="module")
def built():
    """The toy with the MEASURED results, built once: the test that only reads it uses it, the
    tests that change it each a copy (`own`, tests/warehouse/conftest.py)."""
    con = db.connect(":memory:")
    load_reference(con, _catalog(), RUN)
    rows = [
        benchmark(benchmark=workload, workload_id=workload, scenario=scenario, gpu_name=gpu, gpu_count=count,
                  system=f"{count} {gpu}", value=value, source_row=i)
        for i, (workload, scenario, gpu, count, value) in enumerate(MEASURED, start=1)
    ]
    load_benchmarks(con, "test", Parsed(benchmark_frame(rows)), RUN, ["test/2026-11-29/runs.csv"])
    rebuild_estimates(con, "toy", RUN.run_date)
    yield con
    con.close()


def _points(con) -> dict[tuple[str, str, int], tuple]:
    rows = con.execute(
        """select workload_id, gpu_id, gpu_count, class, scaled_by, baseline_gpu_id, baseline_gpu_count,
                  baseline_per_gpu, baseline_ape
           from backtest_baseline"""
    ).fetchall()
    return {row[:3]: row[3:] for row in rows}


def test_the_naive_prediction_is_the_nearest_result_scaled_by_the_spec_ratio(built):
    points = _points(built)
    assert len(points) == len(MEASURED)
    # training: dense peak FLOP/s, 2000 / 1000; the neighbour at the same GPU count first
    assert points[("toy-pretrain", "TOY2", 1)] == (
        TRAINING, "dense peak FLOP/s", "TOY", 1, pytest.approx(8000 * 2.0), pytest.approx(4000 / 12000))
    assert points[("toy-pretrain", "TOY", 1)] == (
        TRAINING, "dense peak FLOP/s", "TOY2", 1, pytest.approx(12000 * 0.5), pytest.approx(2000 / 8000))
    # no 4-GPU result on TOY2: its nearest count, scaled the same way
    assert points[("toy-pretrain", "TOY", 4)] == (
        TRAINING, "dense peak FLOP/s", "TOY2", 1, pytest.approx(6000), pytest.approx(1000 / 7000))
    # decode-bound serving: memory bandwidth, 3.0 / 2.0 TB/s (both in bf16)
    assert points[("toy-offline", "TOY2", 1)] == (
        CARDS, "memory bandwidth", "TOY", 1, pytest.approx(1000 * 1.5), pytest.approx(300 / 1200))
    assert points[("toy-offline", "TOY", 1)] == (
        SXM, "memory bandwidth", "TOY2", 1, pytest.approx(1200 / 1.5), pytest.approx(200 / 1000))
    # nobody else ran the LoRA workload: no baseline
    assert points[("toy-lora", "TOY", 1)] == (TRAINING, "dense peak FLOP/s", None, None, None, None)


def test_a_prefill_heavy_serving_workload_scales_by_flops_and_fp8_weights_halve_the_bytes(own):
    own.execute("update workload set input_len = 4000 where workload_id = 'toy-offline'")
    _rerun_baseline(own)
    assert _points(own)[("toy-offline", "TOY2", 1)][1:4] == ("dense peak FLOP/s", "TOY", 1)
    assert _points(own)[("toy-offline", "TOY2", 1)][4] == pytest.approx(1000 * 2.0)
    # decode-bound again, with TOY's result in FP8: it streamed half the bytes per weight of
    # TOY2's BF16, so TOY2 is predicted at 1.5x the bandwidth for twice the bytes
    own.execute("update workload set input_len = 250 where workload_id = 'toy-offline'")
    own.execute("""update case_layout set run_dtype = 'fp8'
                   where workload_id = 'toy-offline' and gpu_id = 'TOY' and source = 'test'""")
    _rerun_baseline(own)
    assert _points(own)[("toy-offline", "TOY2", 1)][4] == pytest.approx(1000 * 1.5 / 2)


def _rerun_baseline(con) -> None:
    [sql] = [sql for name, sql in db.model_files() if name == "063_backtest_baseline.sql"]
    con.execute(sql)


# hand-made held-out errors and the level each prediction used, per (workload, GPU, count)
ERRORS = {
    ("toy-pretrain", "TOY", 1): (0.05, 0),
    ("toy-pretrain", "TOY", 4): (0.15, 0),
    ("toy-pretrain", "TOY2", 1): (0.50, 0),
    ("toy-lora", "TOY", 1): (0.08, 4),
    ("toy-offline", "TOY", 1): (0.20, 0),
    ("toy-offline", "TOY2", 1): (0.01, 0),
}
# hand-made bands (kind, level) -> (p50, p90); serving has earned none
BANDS = {("pretrain", 0): (0.10, 0.40), ("finetune_lora", 4): (0.05, 0.10), ("serving", 0): (None, None)}


def _hand_made_errors(con) -> None:
    for (workload, gpu, count), (ape, level) in ERRORS.items():
        con.execute(
            """update backtest set loao_ape = ?, loao_level = nullif(?, 0)
               where workload_id = ? and gpu_id = ? and gpu_count = ?""",
            [ape, level, workload, gpu, count],
        )
    for (kind, level), (p50, p90) in BANDS.items():
        con.execute("update error_band_class set error_p50 = ?, error_p90 = ? where kind = ? and level = ?",
                    [p50, p90, kind, level])
    _rerun_baseline(con)


def test_coverage_counts_the_points_inside_the_band_of_the_level_they_used(own):
    _hand_made_errors(own)
    found = figures(own)["baseline_and_coverage"]
    by_class = {row["name"]: row for row in found["per class"]}
    training = by_class[TRAINING]
    # pretrain at level 0 (p50 10%, p90 40%): 5% in both, 15% in p90 only, 50% in neither;
    # LoRA at level 4 (p50 5%, p90 10%): 8% in p90 only
    assert (training["points"], training["p50_band_points"], training["within_p50"],
            training["p90_band_points"], training["within_p90"], training["no_band"]) == (4, 4, 1, 4, 3, 0)
    assert (training["p50_coverage"], training["p90_coverage"]) == (pytest.approx(0.25), pytest.approx(0.75))
    # serving earned no band at level 0: counted apart, never as inside or outside
    for name in (CARDS, SXM):
        row = by_class[name]
        assert (row["points"], row["p50_band_points"], row["within_p50"], row["no_band"]) == (1, 0, 0, 1)
        assert row["p50_coverage"] is None
    [every] = found["every point"]
    assert (every["points"], every["p90_band_points"], every["within_p50"], every["within_p90"],
            every["no_band"]) == (6, 4, 1, 3, 2)
    text = render_figures(figures(own))
    assert "no band earned" in text and "   1/4     25.0%" in text and "   3/4     75.0%" in text


def test_coverage_is_also_read_per_calibration_level_the_predictions_reached(own):
    _hand_made_errors(own)
    by_level = {row["name"]: row for row in figures(own)["baseline_and_coverage"]["per calibration level"]}
    # five points uncalibrated (pretrain 5%, 15%, 50% in a 10%/40% band; serving, no band), one
    # LoRA point at level 4 (8% in a 5%/10% band), named as calibration_level says the levels
    assert list(by_level) == ["uncalibrated: documented efficiencies", "same workload, other GPUs"]
    none, other = by_level.values()
    assert (none["points"], none["within_p50"], none["within_p90"], none["no_band"]) == (5, 1, 2, 2)
    assert (other["points"], other["within_p50"], other["within_p90"], other["no_band"]) == (1, 0, 1, 0)


def test_the_model_and_the_baseline_are_compared_on_the_same_points(own):
    _hand_made_errors(own)
    by_kind = {row["name"]: row for row in figures(own)["baseline_and_coverage"]["per workload kind"]}
    lora, pretrain = by_kind["finetune_lora"], by_kind["pretrain"]
    assert (lora["points"], lora["baseline_points"], lora["no_baseline"], lora["baseline_median"]) == (1, 0, 1, None)
    assert lora["model_median"] == pytest.approx(0.08) and lora["model_median_on_baseline"] is None
    # pretrain: the naive errors worked out above, 1/4, 1/7 and 1/3
    assert pretrain["baseline_points"] == 3
    assert pretrain["baseline_median"] == pytest.approx(0.25)
    assert pretrain["model_median_on_baseline"] == pytest.approx(0.15)
    assert pretrain["scaled_by"] == "dense peak FLOP/s"


def test_backtest_json_carries_the_printed_figures(offline_data):
    text = gpucalc("backtest", "--data-dir", str(offline_data))
    as_json = gpucalc("backtest", "--json", "--data-dir", str(offline_data))
    assert text.exit_code == 0 and as_json.exit_code == 0, text.output + as_json.output
    found = json.loads(as_json.output)
    assert render_figures(found) == text.output.rstrip("\n")
    assert "naive" in text.output and "in the p90 band" in text.output
    rounds = {row["rounds"] for row in found["leave_latest_round_out"]}
    assert {"v4.1 -> v5.0", "v5.0 -> v5.1"} <= rounds and "Leave the latest round out:" in text.output
    [every] = found["baseline_and_coverage"]["every point"]
    classes = found["baseline_and_coverage"]["per class"]
    assert sum(row["points"] for row in classes) == every["points"] == found["overall"]["points"]
    for row in [every, *classes]:
        assert row["baseline_points"] + row["no_baseline"] == row["points"]
        assert row["p90_band_points"] + row["no_band"] == row["points"]
