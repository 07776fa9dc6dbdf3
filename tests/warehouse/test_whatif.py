"""The seed's question through `whatif`: 4x RTX PRO 6000 (3+1, 14.8K tok/s, 8.8 days) against
4x B200 at 3.4x the price per GPU."""

import pytest

from warehouse.scratch import scratch_copy, today
from warehouse.whatif_compare import answer
from warehouse.whatif_inputs import Price, SideSpec, WhatIfError

# B200 producers: 3 x 2250e12 FLOP/s x 0.65 serving GEMM eff x 0.62 producer factor / 48.8 GFLOP
B200_3_PLUS_1 = 3 * 2250e12 * 0.65 * 0.62 / 48.8e9
# the model's own figure for the workstation, which the measurement calibrates to 14,800
WS_3_PLUS_1 = 3 * 504e12 * 0.77 * 0.62 / 48.8e9


@pytest.fixture(scope="module")
def seed_answer():
    return answer(
        scratch_copy(None),
        "dflash-qwen36-27b",
        SideSpec.parse("ws-rtxpro6000-4:4/3+1"),
        [SideSpec.parse("hgx-b200-8:4@3.4x"), SideSpec.parse("hgx-b200-8:8")],
        measured_tokens_per_s=14_800,
        measured_days=8.8,
        run_date=today(),
    )


def test_baseline_is_the_measurement(seed_answer):
    base = seed_answer.baseline
    assert base.measured and base.tokens_per_s == 14_800
    assert base.time_h == pytest.approx(8.8 * 24)
    assert base.gpu_hours == pytest.approx(8.8 * 24 * 4)


def test_four_b200_at_3_4x_per_gpu(seed_answer):
    four = seed_answer.comparisons[0]
    expected_rate = B200_3_PLUS_1 * 14_800 / WS_3_PLUS_1
    assert four.candidate.tokens_per_s == pytest.approx(expected_rate, rel=1e-3)
    assert four.speedup == pytest.approx(expected_rate / 14_800, rel=1e-3)  # ~3.8x faster
    # same GPU count, 3.4x the hourly price, 1/3.77 of the hours
    assert four.cost_ratio == pytest.approx(3.4 * 14_800 / expected_rate, rel=1e-3)
    assert four.faster == "yes"
    assert four.candidate.bottleneck == "compute (target forward)"
    assert four.candidate.tokens_low < four.candidate.tokens_per_s < four.candidate.tokens_high


def test_eight_b200_finds_the_best_role_split(seed_answer):
    eight = seed_answer.comparisons[1].candidate
    assert eight.layout.startswith("7+1")
    assert eight.splits[0][0] == "7+1" and len(eight.splits) == 7
    assert eight.usd_total is not None  # priced from the bundled quotes


def test_assumptions_name_the_token_unit_and_positions_per_token(seed_answer):
    text = " ".join(seed_answer.assumptions)
    assert "target tokens" in text and "0.4 draft positions per target token" in text


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
    candidate = fp8.comparisons[0].candidate
    assert candidate.dtype == "fp8"
    # B200 FP8: 3 x 4500e12 x 0.48 serving GEMM eff x 0.62 / 48.8e9, calibrated like the BF16 run
    assert candidate.tokens_per_s == pytest.approx(3 * 4500e12 * 0.48 * 0.62 / 48.8e9 * 14_800 / WS_3_PLUS_1, rel=1e-3)
