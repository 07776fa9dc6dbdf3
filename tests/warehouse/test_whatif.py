"""The seed's question through `whatif`: 4x RTX PRO 6000 (3+1, 14.8K tok/s, 8.8 days) against
4x B200 at 3.4x the price per GPU, with the target and drafter split 3+1 or shared on every
GPU, 8x B200, and the drafters on a cheaper GPU type."""

import pytest

from sources.kit.clock import today
from tests.warehouse.toy_roles import synced_drafter_rate
from warehouse.questions.scratch import scratch_copy
from warehouse.questions.whatif import side_gpus
from warehouse.questions.whatif_checks import check_measurement
from warehouse.questions.whatif_compare import answer
from warehouse.questions.whatif_inputs import Price, SideSpec, WhatIfError

# one B200 (2,250 TF BF16) as a target: x 0.65 serving GEMM eff x 0.62 producer factor / 48.8 GFLOP
B200_TARGET = 2250e12 * 0.65 * 0.62 / 48.8e9  # 18,581 tokens/s
# one B200 as a drafter: x 0.78 training GEMM eff x 0.50 consumer factor / (14.7 GFLOP x 0.4 positions)
B200_DRAFTER = 2250e12 * 0.78 * 0.50 / (14.7e9 * 0.4)  # 149,235 tokens/s
# a shared B200 does both in turn: 1 / (1/18,581 + 1/149,235) = 16,524 tokens/s
B200_SHARED = 1 / (1 / B200_TARGET + 1 / B200_DRAFTER)
# one RTX PRO 6000 Server Edition (500 TF at its 0.99 sustained clock) as a drafter:
# x 0.91 x 0.50 / 5.88 GFLOP = 38,304 tokens/s
RTXPRO_SE_DRAFTER = 500e12 * 0.99 * 0.91 * 0.50 / (14.7e9 * 0.4)
SEED_TOKENS_PER_S = 14_800

SEED_SIDES = [
    "hgx-b200-8:4/3+1@3.4x",  # the user's own split on B200
    "hgx-b200-8:4/shared@3.4x",  # target and drafter on every GPU
    "hgx-b200-8:8",  # the best layout of a whole node, priced from the estimates
    "hgx-b200-8:4@3.4x+srv-rtxpro6000-8:2@1x",  # 4 B200 targets, 2 RTX PRO 6000 drafters
]


@pytest.fixture(scope="module")
def seed():
    con = scratch_copy(None)
    result = answer(
        con,
        "dflash-qwen36-27b",
        SideSpec.parse("ws-rtxpro6000-4:4/3+1"),
        [SideSpec.parse(s) for s in SEED_SIDES],
        measured_tokens_per_s=SEED_TOKENS_PER_S,
        measured_days=8.8,
        run_date=today(),
    )
    yield con, result
    con.close()


@pytest.fixture(scope="module")
def seed_answer(seed):
    return seed[1]


@pytest.fixture(scope="module")
def unmeasured():
    """A private copy of the bundled warehouse for the questions asked without a measurement:
    each adds only the sides it asks about to the copy's requests, which change no other
    question's answer, so they share one copy."""
    con = scratch_copy(None)
    yield con
    con.close()


def test_baseline_is_the_measurement(seed_answer):
    base = seed_answer.baseline
    assert base.measured and base.tokens_per_s == SEED_TOKENS_PER_S
    assert base.time_h == pytest.approx(8.8 * 24)
    assert base.gpu_hours == pytest.approx(8.8 * 24 * 4)
    # hidden states: 14,800 x 51,200 B = 0.758 GB/s of one drafter's PCIe copy path, 64 GB/s x 0.58
    assert base.transfer == {"needed_gbs": pytest.approx(0.75776), "capacity_gbs": pytest.approx(37.12),
                             "link": "PCIe transfer via host"}
    # share of the dense BF16 peak (504 TF): targets 14,800 x 48.8e9 / (3 x 504e12) = 47.8%, the
    # drafter 14,800 x 14.7e9 x 0.4 / 504e12 = 17.3%
    assert base.peak_shares == {"target forward": pytest.approx(14_800 * 48.8e9 / (3 * 504e12)),
                                "drafter training": pytest.approx(14_800 * 14.7e9 * 0.4 / 504e12)}


def test_four_b200_split_3_plus_1_at_3_4x_per_gpu(seed_answer):
    four = seed_answer.comparisons[0]
    # the B200 is not calibrated (one role-pipeline point is no evidence): 3 x 18,581 = 55,743
    assert four.candidate.tokens_per_s == pytest.approx(3 * B200_TARGET)
    assert four.speedup == pytest.approx(3 * B200_TARGET / SEED_TOKENS_PER_S)  # 3.77x faster
    # same GPU count, 3.4x the hourly price, 1/3.77 of the hours: 0.90x. The workstation has no
    # on-demand quote, but a price relative to it needs none
    assert four.cost_ratio == pytest.approx(3.4 * SEED_TOKENS_PER_S / (3 * B200_TARGET))
    assert four.candidate.usd_total is None and four.costs["on_demand"].ratio == four.cost_ratio
    # one measured role pipeline (the seed run itself) is no held-out evidence: the answer says so
    assert four.faster == "yes (unvalidated: 1 point of role pipeline)"
    assert four.candidate.bottleneck == "compute (target forward)"
    assert four.candidate.tokens_low is None and four.speedup_range is None


def test_four_b200_shared_is_faster_and_cheaper(seed_answer):
    shared = seed_answer.comparisons[1]
    # 4 x 16,524 = 66,094 tokens/s: 4.47x the workstation; cost 3.4 / 4.47 = 0.76x
    assert shared.candidate.tokens_per_s == pytest.approx(4 * B200_SHARED)
    assert shared.speedup == pytest.approx(4 * B200_SHARED / SEED_TOKENS_PER_S)
    assert shared.cost_ratio == pytest.approx(3.4 * SEED_TOKENS_PER_S / (4 * B200_SHARED))
    assert shared.cheaper == "yes (unvalidated: 1 point of role pipeline)"
    assert shared.candidate.placement == "shared" and shared.candidate.transfer == {}
    # split 3+1 is the user's layout but not B200's best
    assert [s for s, *_ in shared.candidate.splits] == ["shared", "3+1", "2+2", "1+3"]


def test_eight_b200_shares_every_gpu(seed_answer):
    eight = seed_answer.comparisons[2].candidate
    # shared 8 x 16,524 = 132,189 beats 7+1 = min(7 x 18,581, 149,235) = 130,067
    assert eight.layout.startswith("8 shared") and eight.tokens_per_s == pytest.approx(8 * B200_SHARED)
    assert eight.splits[0][0] == "shared" and eight.splits[1] == ("7+1", pytest.approx(7 * B200_TARGET),
                                                                  "compute (target forward)")
    assert len(eight.splits) == 8  # 7 splits and shared


def test_eight_b200_is_priced_from_the_estimate_on_demand(seed):
    con, result = seed
    eight = result.comparisons[2]
    cheapest = con.execute(
        """select min(usd_per_hour) from estimate where workload_id = 'dflash-qwen36-27b'
           and platform_id = 'hgx-b200-8' and n_gpus = 8 and pricing = 'on_demand'"""
    ).fetchone()[0]
    point = eight.candidate.prices["on_demand"]
    assert (point.source, point.usd_per_hour) == ("estimate", cheapest)
    assert point.usd_total == pytest.approx(cheapest * eight.candidate.time_h)
    # the workstation is only ever owned: no on-demand figure to compare dollars with
    assert eight.cheaper == "unknown (no on_demand price for the baseline)"


def test_drafters_on_a_cheaper_gpu_type(seed_answer):
    pair = seed_answer.comparisons[3]
    side = pair.candidate
    assert (side.n_gpus, side.drafter_platform_id, side.drafter_gpus) == (6, "srv-rtxpro6000-8", 2)
    # 4 B200 targets make 74,324 tokens/s; 2 RTX PRO 6000 drafters would take 2 x 38,304 = 76,607,
    # but each step of the recipe's 8 sequences ends in an all-reduce of the 1.73B drafter's bf16
    # gradients over the server's PCIe via the host (37.12 GB/s): 3.46e9 / 37.12e9 = 0.0932 s, of
    # which the last backward hides 2/3 x 2,048 / 38,304 s: the drafters set the pace at 60,360
    drafters = synced_drafter_rate(2, RTXPRO_SE_DRAFTER, 1.73e9 * 2, 64 * 0.58, 2048, 8)
    assert drafters == pytest.approx(16_384 / (16_384 / (2 * RTXPRO_SE_DRAFTER) + 3.46 / 37.12
                                              - 2 / 3 * 2048 / RTXPRO_SE_DRAFTER))
    assert side.stages["consumer_rate"] == pytest.approx(drafters)
    assert side.tokens_per_s == pytest.approx(drafters) and side.bottleneck == "compute (drafter training)"
    # hidden states over the drafters' NICs: 2 x 100 Gbit/s / 8 x 0.9 = 22.5 GB/s
    assert side.transfer["capacity_gbs"] == pytest.approx(22.5)
    # (4 x 3.4 + 2 x 1.0) baseline GPU-hours per hour, over 4 per hour on the workstation
    assert pair.cost_ratio == pytest.approx((4 * 3.4 + 2 * 1.0) / 4 * SEED_TOKENS_PER_S / drafters)


def test_units_per_token_4_would_need_173_percent_of_the_drafter_gpu(seed):
    con, result = seed
    # 14,800 x 14.7 GFLOP x 4 positions = 870 TFLOP/s on the 3+1 drafter, a 504 TF card: 173%
    workload = {**result.workload, "units_per_token": 4}
    with pytest.raises(WhatIfError, match=r"x 4 draft positions per token = 870 TFLOP/s .* \(173% of peak\)"):
        check_measurement(con, workload, result.baseline, SideSpec.parse("ws-rtxpro6000-4:4/3+1"))


def test_assumptions_name_the_token_unit_and_positions_per_token(seed_answer):
    text = " ".join(seed_answer.assumptions)
    assert "target tokens" in text and "0.4 draft positions per target token" in text
    assert "Price basis: on_demand" in text


def test_bad_inputs_say_what_is_wrong():
    with pytest.raises(WhatIfError, match="price '3.4 times'"):
        Price.parse("3.4 times")
    with pytest.raises(WhatIfError, match="unknown platform 'hgx-b900-8'"):
        answer(
            scratch_copy(None),
            "dflash-qwen36-27b",
            SideSpec.parse("ws-rtxpro6000-4"),
            [SideSpec.parse("hgx-b900-8:4")],
            run_date=today(),
        )


def test_a_count_beyond_what_the_platform_is_modelled_at_is_refused(seed):
    """HGX B200 is modelled at 8 GPUs per node x 128 nodes = 1,024 GPUs, the workstation at 4 x 1
    (platform.csv), as the nightly estimates are: 999,999 B200s answered 16.5 billion tokens/s."""
    con, _ = seed
    assert side_gpus(con, SideSpec.parse("hgx-b200-8:1024")) == 1024
    with pytest.raises(WhatIfError, match=r"hgx-b200-8 is modelled up to 1,024 GPUs \(8 per node x 128 nodes\), "
                                          r"not 1,025"):
        side_gpus(con, SideSpec.parse("hgx-b200-8:1025"))
    with pytest.raises(WhatIfError, match=r"up to 4 GPUs \(4 per node x 1 node\), not 8"):
        side_gpus(con, SideSpec.parse("ws-rtxpro6000-4:8"))


def test_candidates_can_run_in_another_dtype_while_the_baseline_keeps_its_own():
    fp8 = answer(
        scratch_copy(None),
        "dflash-qwen36-27b",
        SideSpec.parse("ws-rtxpro6000-4:4/3+1"),
        [SideSpec.parse("hgx-b200-8:4/3+1@3.4x")],
        measured_tokens_per_s=14_800,
        dtype="fp8",
        run_date=today(),
    )
    assert fp8.baseline.dtype == "bf16" and fp8.baseline.tokens_per_s == 14_800
    comparison = fp8.comparisons[0]
    assert comparison.candidate.dtype == "fp8"
    # B200 FP8: 3 x 4500e12 x 0.48 serving GEMM eff x 0.62 / 48.8e9 (no calibration reaches the B200)
    assert comparison.candidate.tokens_per_s == pytest.approx(3 * 4500e12 * 0.48 * 0.62 / 48.8e9)
    assert comparison.notes[0].startswith("precision differs: the candidate runs in FP8, the baseline was measured "
                                          "in BF16")


def test_a_serving_side_is_the_published_choice_that_meets_its_latency_limit(unmeasured):
    """Llama-2-70B Interactive (TPOT 40 ms) on 8 MI300X, calibrated at about 0.51 of the documented
    efficiencies: the batch chosen before calibration would run at about 74 ms per token once
    the factor slows every step. A side is the published estimate, whose batch meets 40 ms."""
    con = unmeasured
    result = answer(con, "llama2-70b-interactive", SideSpec.parse("hgx-h100-8:8"),
                    [SideSpec.parse("mi300x-8:8")], run_date=today())
    side = result.comparisons[0].candidate
    key = "workload_id = 'llama2-70b-interactive' and platform_id = 'mi300x-8' and n_gpus = 8"
    tokens_per_s, batch, tpot_ms, factor = con.execute(
        f"select tokens_per_s, batch, tpot_ms, calibration_factor from topology_estimate where {key}").fetchone()
    uncalibrated_tpot_s = con.execute(
        f"select tpot_s from topology_serving where {key} and dtype = 'fp8'").fetchone()[0]
    assert factor < 0.6
    assert uncalibrated_tpot_s / factor > 0.040  # the uncalibrated batch, slowed by the factor, breaks 40 ms
    assert tpot_ms <= 40.0
    assert side.tokens_per_s == pytest.approx(tokens_per_s)
    assert side.layout.endswith(f"batch {batch}")


def test_a_serving_side_of_whole_systems_serves_that_many_times_one(unmeasured):
    """24 H100s on Llama-2-70B Offline are three 8-GPU systems full of replicas, which need no link
    between them: three times the 8-GPU estimate, with its calibration ("measured": the bundled
    16- and 32-GPU MLPerf results ran as such systems). No spanning layout reaches 24 GPUs, so
    this count had no layout at all before."""
    result = answer(unmeasured, "llama2-70b-offline", SideSpec.parse("hgx-h100-8:8"),
                    [SideSpec.parse("hgx-h100-8:24")], run_date=today())
    eight, twenty_four = result.baseline, result.comparisons[0].candidate
    assert twenty_four.tokens_per_s == pytest.approx(3 * eight.tokens_per_s, rel=1e-12)
    assert twenty_four.layout.startswith("tp2 pp1 x12 replicas in 3 systems")
    assert eight.confidence == twenty_four.confidence == "measured"
