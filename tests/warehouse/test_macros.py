"""The physics macros against hand-worked numbers (see docs/model.md for the formulas)."""

import pytest


def scalar(con, sql):
    return con.execute(f"select {sql}").fetchone()[0]


def test_training_flops_per_token_dense_and_lora(con):
    # 6 * 70e9 + 6 * 80 layers * 64 heads * 128 dims * 4096 tokens = 4.2e11 + 1.6106e10
    assert scalar(con, "train_flops_per_token(70, 80, 64, 128, 4096, 'pretrain')") == pytest.approx(4.3610612736e11)
    # LoRA skips the frozen weights' gradients: 4N instead of 6N
    assert scalar(con, "train_flops_per_token(70, 80, 64, 128, 4096, 'finetune_lora')") == pytest.approx(
        2.9610612736e11
    )


def test_dtype_fallback(con):
    # A100 has no FP8: an FP8 workload runs in BF16 at the BF16 peak
    assert scalar(con, "effective_dtype('fp8', null, null)") == "bf16"
    assert scalar(con, "peak_tflops('fp8', null, null, 312)") == 312
    # Hopper has FP8 but no FP4: FP4 falls back to FP8
    assert scalar(con, "effective_dtype('fp4', null, 1979)") == "fp8"
    assert scalar(con, "peak_tflops('fp4', null, 1979, 989)") == 1979
    assert scalar(con, "dtype_bytes('fp4')") == 0.5


def test_collectives(con):
    # ring all-reduce of 1 GB over 8 ranks at 100 GB/s: 2 * 7/8 * 0.01 s, plus 14 hops of 10 us
    assert scalar(con, "allreduce_s(1e9, 8, 100, 0)") == pytest.approx(0.0175)
    assert scalar(con, "allreduce_s(1e9, 8, 100, 1e-5)") == pytest.approx(0.0175 + 14e-5)
    assert scalar(con, "allreduce_s(1e9, 1, 100, 1e-5)") == 0


def test_moe_decode_reads_only_touched_experts(con):
    # Mixtral: 8 experts, top-2. One token touches 2 of 8; two tokens 1 - 0.75^2 = 43.75% of them
    assert scalar(con, "experts_touched_fraction(8, 2, 1)") == pytest.approx(0.25)
    assert scalar(con, "experts_touched_fraction(8, 2, 2)") == pytest.approx(0.4375)
    # a large batch touches them all
    assert scalar(con, "experts_touched_fraction(8, 2, 1000)") == pytest.approx(1.0)


def test_ownership_cost_per_hour(con):
    # 400k USD over 5 years + 14.3 kW x 1.25 PUE x 0.083 USD/kWh + 184.06 USD/kW-month colo, at 80%
    capex = 400_000 / (5 * 8760)
    power = 14.3 * 1.25 * 0.083
    colo = 184.06 * 14.3 * 12 / 8760
    assert scalar(con, "owned_usd_per_hour(400000, 5, 14.3, 1.25, 0.083, 184.06, 0.8)") == pytest.approx(
        (capex + power + colo) / 0.8
    )
    assert (capex + power + colo) / 0.8 == pytest.approx(17.777, abs=1e-3)


def test_cost_per_million_tokens(con):
    # 10 USD/hour at 1000 tokens/s = 3.6M tokens/hour -> 2.78 USD per million
    assert scalar(con, "usd_per_mtok(10, 1000)") == pytest.approx(2.7777778)


def test_declared_precision_normalisation(con):
    assert scalar(con, "normalized_precision('NVFP4', 'fp8')") == "fp4"
    assert scalar(con, "normalized_precision('fp4+fp8', 'fp8')") == "fp4"
    assert scalar(con, "normalized_precision('fp8_e4m3', 'bf16')") == "fp8"
    # a declared 16-bit format on a quantised MLPerf submission keeps the workload's dtype
    assert scalar(con, "normalized_precision('fp16', 'fp8')") == "fp8"
    assert scalar(con, "normalized_precision(null, 'bf16')") == "bf16"
