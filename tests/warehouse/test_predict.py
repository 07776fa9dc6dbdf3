"""`predict` on rows in the MLPerf results format: every row comes back, with a prediction or
a reason, and GPU names are taken as people write them."""

import polars as pl
import pytest

from sources.kit.clock import today
from warehouse.build.rebuild import rebuild_estimates
from warehouse.questions.predict import predict
from warehouse.questions.scratch import scratch_copy

CASES = pl.DataFrame(
    {
        "benchmark": [
            "llama2-70b-99",
            "llama2-70b-99",
            "mixtral-8x7b",
            "llama2-70b-99",
            "bert-99",
            "llama2-70b-99",
            "llama2_70b_lora",
        ],
        "scenario": [
            "Offline",
            "Offline",
            "Server",
            "Offline",
            "Offline",
            "Offline",
            "time-to-train (closed, quality target)",
        ],
        "task": ["inference"] * 6 + ["training"],
        "gpu_type": ["H100-SXM", "", "", "Z9000", "H100-SXM", "H100-SXM", "MI300X"],
        "accelerator_name": ["NVIDIA H100-SXM-80GB", "NVIDIA B200-SXM-180GB", "AMD Instinct MI355X", "", "", "", ""],
        "gpu_count": ["16", "8", "8", "8", "8", "zero", "8"],
        "nodes": ["2", "1", "1", "1", "1", "1", "1"],
        "precision_declared": ["fp8", "fp4", "", "", "", "", ""],
        "result_value": ["62352", "", "", "", "", "", "27.969"],
    }
)


@pytest.fixture(scope="module")
def predicted():
    return predict(scratch_copy(None), CASES, today())


def test_every_row_comes_back_in_order_with_its_columns(predicted):
    assert predicted.height == CASES.height
    assert predicted["benchmark"].to_list() == CASES["benchmark"].to_list()
    for column in ("predicted_tokens_per_s", "predicted_per_gpu", "bottleneck", "confidence", "reason"):
        assert column in predicted.columns


def test_known_rows_are_predicted_and_say_how(predicted):
    h100, b200, mi355x = predicted.head(3).to_dicts()
    # the bundled H100 Llama-2-70B Offline results ran on 16 and 32 GPUs: 16 is measured
    assert h100["confidence"] == "measured"
    assert h100["predicted_tokens_per_s"] == pytest.approx(16 * h100["predicted_per_gpu"])
    # measured: the bundled 16-GPU result itself, 3,897 tokens/s per GPU (MLPerf Inference v5.1)
    assert h100["predicted_tokens_per_s"] == pytest.approx(16 * 3897, rel=0.01)
    # measured: the bundled B200 result (MLPerf Inference v4.1, one GPU, FP4), 11,264.4 tokens/s;
    # 8 GPUs are eight such systems side by side
    assert b200["confidence"] == "measured" and b200["predicted_dtype"] == "fp4"
    assert b200["predicted_per_gpu"] == pytest.approx(11264.4, rel=1e-9)
    assert b200["predicted_per_gpu"] > 2 * h100["predicted_per_gpu"]  # FP4 + 2.3x the bandwidth
    # nobody measured an MI355X: it is calibrated from the others
    assert mi355x["reason"] is None and mi355x["predicted_tokens_per_s"] > 0
    assert mi355x["confidence"] == "calibrated"
    assert b200["error_basis"].startswith(("backtest: ", "unvalidated: "))


def test_whole_measured_systems_are_measured_and_part_of_one_is_not():
    """The bundled 16- and 32-GPU H100 results measured the 8-GPU system (two and four of them):
    8 and 24 GPUs are whole such systems; 4 GPUs are half of one, which nobody measured."""
    asked = pl.concat([CASES.head(1).with_columns(pl.lit(n).alias("gpu_count"), pl.lit("1").alias("nodes"))
                       for n in ("8", "24", "4")])
    got = predict(scratch_copy(None), asked, today())
    assert got["confidence"].to_list() == ["measured", "measured", "calibrated"]
    assert got["predicted_per_gpu"][0] == pytest.approx(got["predicted_per_gpu"][1], rel=1e-12)


def test_holdout_predicts_as_if_the_accelerator_had_never_been_measured(predicted):
    held = predict(scratch_copy(None), CASES.head(1), today(), holdout=True).to_dicts()[0]
    assert held["confidence"] != "measured"
    # the same layout, with a factor learnt from other accelerators instead of its own results
    assert held["predicted_layout"] == predicted["predicted_layout"][0]
    assert held["predicted_per_gpu"] != pytest.approx(predicted["predicted_per_gpu"][0])


def test_holdout_is_the_backtests_own_prediction_of_the_point():
    """A held-out accelerator's results calibrate nothing, while the levels calibration trusts
    stay those the whole backtest decided: each case is predicted exactly as the backtest
    predicted that measurement (it used to recalibrate without them, and trust nothing:
    MI300X Llama-2-70B Server came out at 3,057 per GPU under --holdout, 3,641 in the backtest)."""
    con = scratch_copy(None)
    cases = pl.DataFrame({
        "benchmark": ["llama2-70b-99"] * 4, "scenario": ["Offline", "Server", "Interactive", "Offline"],
        "task": ["inference"] * 4, "gpu_type": ["H100-SXM", "MI300X", "MI300X", "MI300X"],
        "accelerator_name": [""] * 4, "gpu_count": ["16", "8", "8", "16"], "nodes": ["2", "1", "1", "2"],
        "precision_declared": ["fp8"] * 4, "result_value": [""] * 4})
    held = predict(con, cases, today(), holdout=True)["predicted_per_gpu"].to_list()
    rebuild_estimates(con, "backtest", today())
    backtest = [con.execute(
        """select distinct loao_predicted_per_gpu from backtest
           where workload_id = ? and gpu_id = ? and gpu_count = ?""", [f"llama2-70b-{s.lower()}", g, int(n)]
    ).fetchall() for s, g, n in zip(cases["scenario"], cases["gpu_type"], cases["gpu_count"], strict=True)]
    assert [len(b) for b in backtest] == [1, 1, 1, 1]
    assert held == [pytest.approx(b[0][0], rel=1e-12) for b in backtest]


def test_rows_it_cannot_model_say_why(predicted):
    reasons = predicted["reason"].to_list()
    assert reasons[3] == "unknown GPU: 'Z9000': no catalog accelerator 'Z9000' (add it to gpu.csv)"
    assert reasons[4].startswith("no gpucalc workload for benchmark 'bert-99'")
    assert reasons[5] == "gpu_count 'zero' is not a positive number"
    assert predicted["predicted_tokens_per_s"][3] is None


def test_training_rows_predict_tokens_and_time(predicted):
    lora = predicted.row(6, named=True)
    assert lora["predicted_tokens_per_s"] > 0 and lora["predicted_time_to_train_min"] > 0


def test_a_latency_bound_case_nobody_measured_is_predicted_at_a_batch_that_meets_its_limit():
    """Mixtral-8x7B Server (TPOT 200 ms) on 8 B200s, calibrated at about 0.67 of the documented
    efficiencies: the batch chosen before calibration would run slower than 200 ms per token once
    the factor slows every step. The prediction is the published estimate, whose batch is chosen
    under the factor, not the uncalibrated choice times the factor."""
    con = scratch_copy(None)
    case = pl.DataFrame({"benchmark": ["mixtral-8x7b"], "scenario": ["Server"], "task": ["inference"],
                         "gpu_type": ["B200"], "accelerator_name": ["NVIDIA B200-SXM-180GB"], "gpu_count": ["8"],
                         "nodes": ["1"], "precision_declared": [""], "result_value": [""]})
    row = predict(con, case, today()).to_dicts()[0]
    key = "workload_id = 'mixtral-8x7b-server' and platform_id = 'hgx-b200-8' and n_gpus = 8"
    tokens, batch, tpot_ms, factor = con.execute(
        f"select tokens_per_s, batch, tpot_ms, calibration_factor from topology_estimate where {key}").fetchone()
    uncalibrated_tpot_s = con.execute(
        f"select tpot_s from topology_serving where {key} and dtype = 'fp8'").fetchone()[0]
    assert row["confidence"] == "calibrated" and factor < 0.8
    assert uncalibrated_tpot_s / factor > 0.200  # the uncalibrated batch, slowed by the factor, breaks the limit
    assert tpot_ms <= 200.0
    assert row["predicted_tokens_per_s"] == pytest.approx(tokens)
    assert row["predicted_layout"].endswith(f"batch {batch}")


def test_a_case_smaller_than_the_systems_best_replica_is_predicted_not_dropped():
    """Mixtral-8x7B Server on 2 L40S: the best layout of an 8-GPU L40S system has replicas of 4
    GPUs, so a 2-GPU result was matched to nothing and predicted by scaling the uncalibrated rate.
    The case keeps the best layout of each scale-up group size: 2-GPU expert-parallel replicas,
    chosen under the case's factor. Llama-2-70B Interactive on one RTX PRO 6000 (Server Edition)
    said "no platform model for this GPU"; its tp1 replica cannot meet 40 ms per token."""
    con = scratch_copy(None)
    cases = pl.DataFrame({"benchmark": ["mixtral-8x7b", "llama2-70b-99"], "scenario": ["Server", "Interactive"],
                          "task": ["inference"] * 2, "gpu_type": ["L40S", "RTX PRO 6000"],
                          "accelerator_name": ["", ""], "gpu_count": ["2", "1"], "nodes": ["1", "1"],
                          "precision_declared": ["", ""], "result_value": ["", ""]})
    l40s, rtx = predict(con, cases, today()).to_dicts()
    assert l40s["predicted_layout"].startswith("ep2 attention dp2") and l40s["reason"] is None
    per_gpu = con.execute(
        """select tokens_per_s / n_gpus from topology_serving_calibrated
           where case_index = 0 and layout = ?""", [l40s["predicted_layout"]]).fetchone()[0]
    assert l40s["predicted_tokens_per_s"] == pytest.approx(2 * per_gpu)
    assert rtx["predicted_platform"] == "srv-rtxpro6000-8"
    assert rtx["reason"] == "does not fit: cannot meet the TTFT/TPOT limits at any batch"


def test_the_submitters_spelling_decides_which_variant_a_case_ran_on():
    """MLPerf's GH200 rows say gpu_type 'GH200' (the 96 GB part's alias) and accelerator_name
    'NVIDIA GH200 Grace Hopper Superchip 144GB': the 144 GB HBM3e superchip ran them."""
    case = pl.DataFrame({"benchmark": ["llama2-70b-99"], "scenario": ["Offline"], "task": ["inference"],
                         "gpu_type": ["GH200"], "accelerator_name": ["NVIDIA GH200 Grace Hopper Superchip 144GB"],
                         "gpu_count": ["1"], "nodes": ["1"], "precision_declared": ["fp16"], "result_value": [""]})
    row = predict(scratch_copy(None), case, today()).to_dicts()[0]
    assert (row["predicted_platform"], row["reason"]) == ("gh200-144gb-1", None)
