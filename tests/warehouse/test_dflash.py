"""The seed's DFlash pipeline on the bundled catalog, against numbers worked out by hand from
the catalog's sources (gpu_specs.md, modeling.md §5, efficiency.csv)."""

import pytest

from warehouse.rebuild import rebuild_estimates
from warehouse.scratch import scratch_copy, today

PEAK_BF16 = 504e12  # RTX PRO 6000 Blackwell WS dense BF16 (estimate, gpu_specs.md N11)
PRODUCER_EFF = 0.77 * 0.62  # serving GEMM efficiency x producer stage factor
CONSUMER_EFF = 0.91 * 0.50  # training GEMM efficiency x consumer stage factor
TARGET_GFLOP, DRAFT_GFLOP, POSITIONS_PER_TOKEN = 48.8, 14.7, 0.4
PCIE_GBS = 128 / 2 * 0.75  # Gen5 x16 per direction x NCCL link efficiency


@pytest.fixture(scope="module")
def bundled():
    con = scratch_copy(None)
    rebuild_estimates(con, "dflash", today())
    yield con
    con.close()


def test_seed_workstation_3_plus_1_is_target_forward_bound(bundled):
    producer, transfer, consumer, rate, bottleneck = bundled.execute(
        """select producer_rate, transfer_rate, consumer_rate, tokens_per_s, bottleneck from topology_role
           where workload_id = 'dflash-qwen36-27b' and platform_id = 'ws-rtxpro6000-4' and producers = 3
             and consumers = 1"""
    ).fetchone()
    assert producer == pytest.approx(3 * PEAK_BF16 * PRODUCER_EFF / (TARGET_GFLOP * 1e9))  # 14,791 tok/s
    assert consumer == pytest.approx(PEAK_BF16 * CONSUMER_EFF / (DRAFT_GFLOP * 1e9 * POSITIONS_PER_TOKEN))
    assert transfer == pytest.approx(PCIE_GBS * 1e9 / 51_200)  # hidden states via host memory
    assert rate == pytest.approx(producer) and bottleneck == "compute (target forward)"
    assert rate == pytest.approx(14_800, rel=0.01)  # the seed measured 14.8K target tokens/s


def test_every_split_of_eight_b200_is_enumerated_and_the_best_kept(bundled):
    splits = bundled.execute(
        """select producers, consumers from topology_role
           where workload_id = 'dflash-qwen36-27b' and platform_id = 'hgx-b200-8' and n_gpus = 8
           order by producers"""
    ).fetchall()
    assert splits == [(k, 8 - k) for k in range(1, 8)]
    best = bundled.execute(
        """select producers, consumers from topology_estimate
           where workload_id = 'dflash-qwen36-27b' and platform_id = 'hgx-b200-8' and n_gpus = 8"""
    ).fetchone()
    # B200 BF16 2,250 TF: a producer makes 2250e12 x 0.65 x 0.62 / 48.8e9 = 18.6K tok/s, a consumer
    # absorbs 2250e12 x 0.78 x 0.5 / (14.7e9 x 0.4) = 149K: one drafter feeds seven targets
    assert best == (7, 1)
