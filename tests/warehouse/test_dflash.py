"""The seed's DFlash pipeline on the bundled catalog, against numbers worked out by hand from
the catalog's sources (gpu_specs.md, modeling.md §5, efficiency.csv)."""

import pytest

from sources.kit.clock import today
from tests.warehouse.toy_roles import synced_drafter_rate
from warehouse.build.rebuild import rebuild_estimates
from warehouse.questions.scratch import scratch_copy

PEAK_BF16 = 504e12  # RTX PRO 6000 Blackwell WS dense BF16 (estimate, gpu_specs.md N11)
# serving GEMM efficiency x producer stage factor; the factor comes from DFlash target prefill on
# H200 (SpecForge: ~43% MFU / serve_eff 0.69 = 0.62), not from the seed run this test predicts
PRODUCER_EFF = 0.77 * 0.62
CONSUMER_EFF = 0.91 * 0.50  # training GEMM efficiency x consumer stage factor
TARGET_GFLOP, DRAFT_GFLOP, POSITIONS_PER_TOKEN = 48.8, 14.7, 0.4
PCIE_GBS = 128 / 2 * 0.58  # Gen5 x16 per direction x a GPU-host-GPU copy's share of it (link.csv)


@pytest.fixture(scope="module")
def bundled():
    # the seed run held out: predicted from the catalog alone, then compared with it
    con = scratch_copy(None)
    con.execute("delete from benchmark_result where workload_id = 'dflash-qwen36-27b'")
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
    published, confidence = bundled.execute(
        """select tokens_per_s, confidence from topology_estimate where workload_id = 'dflash-qwen36-27b'
           and platform_id = 'ws-rtxpro6000-4' and n_gpus = 4"""
    ).fetchone()
    assert confidence == "default" and published == pytest.approx(rate)
    assert published == pytest.approx(14_800, rel=0.01)  # the seed, never seen, measured 14.8K tokens/s


def test_every_split_of_eight_b200_is_enumerated_and_sharing_every_gpu_wins(bundled):
    splits = bundled.execute(
        """select producers, consumers from topology_role
           where workload_id = 'dflash-qwen36-27b' and platform_id = 'hgx-b200-8' and n_gpus = 8
             and placement = 'split' order by producers"""
    ).fetchall()
    assert splits == [(k, 8 - k) for k in range(1, 8)]
    best = bundled.execute(
        """select producers, consumers, tokens_per_s from topology_estimate
           where workload_id = 'dflash-qwen36-27b' and platform_id = 'hgx-b200-8' and n_gpus = 8"""
    ).fetchone()
    # B200 BF16 2,250 TF: a producer makes 2250e12 x 0.65 x 0.62 / 48.8e9 = 18.6K tok/s, a consumer
    # absorbs 2250e12 x 0.78 x 0.5 / (14.7e9 x 0.4) = 149K: one drafter feeds seven targets, 7+1 =
    # 130,067. Sharing every GPU: 8 / (1/18,581 + 1/149,235) = 132,189, a little more
    target, drafter = 2250e12 * 0.65 * 0.62 / 48.8e9, 2250e12 * 0.78 * 0.5 / (14.7e9 * 0.4)
    assert best == (8, 8, pytest.approx(8 / (1 / target + 1 / drafter)))


def test_the_workstation_cannot_share_its_gpus_profitably(bundled):
    # Target (26.9B x 2 B + 34 x 2048 x 5120 B = 54.2 GB) and drafter (1.73B x 16 B + 2 x 248,320 x
    # 5120 x 2 B + 5 x 34 x 2048 x 5120 B = 34.5 GB) exceed 96 x 0.92 = 88.3 GB, so a shared GPU
    # holds half the target (tp2): 27.1 + 34.5 GB. The tp2 all-reduces cross PCIe: per token
    # 2 x 64 layers x (20,971,520 B / (64 GB/s x 0.44) + 2 x 3.5 us) / 2048 = 47.0 us, on top of
    # the GEMMs' 48.8e9 / (2 x 504e12 x 0.77 x 0.62) = 101.4 us: 3,369 tokens/s per GPU
    shared = bundled.execute(
        """select tp, mem_per_gpu_gb, tokens_per_s from topology_role where workload_id = 'dflash-qwen36-27b'
           and platform_id = 'ws-rtxpro6000-4' and placement = 'shared' and n_gpus = 4"""
    ).fetchone()
    gemm_s = TARGET_GFLOP * 1e9 / (2 * PEAK_BF16 * PRODUCER_EFF)
    tp_s = 2 * 64 * (2048 * 5120 * 2 / (64e9 * 0.44) + 2 * 3.5e-6) / 2048
    # The four drafters train data-parallel: each step of the recipe's 8 sequences of 2,048 tokens
    # ends in an all-reduce of the 1.73B drafter's bf16 gradients over PCIe via the host (64 GB/s
    # x 0.58): 2 x 3/4 x 3.46e9 / 37.12e9 = 0.1398 s, 0.0350 s of it hidden by the last backward
    drafter = PEAK_BF16 * CONSUMER_EFF / (DRAFT_GFLOP * 1e9 * 0.4)
    drafters = synced_drafter_rate(4, drafter, 1.73e9 * 2, 64 * 0.58, 2048, 8)
    assert drafters == pytest.approx(16_384 / (16_384 / (4 * drafter) + 0.13982 - 2 / 3 * 2048 / drafter), rel=1e-4)
    target = 4 / (2 * (gemm_s + tp_s))
    assert shared == (2, pytest.approx(54.21 / 2 + 34.51, abs=0.02), pytest.approx(1 / (1 / target + 1 / drafters)))
    # 11,494 tokens/s, below the 3+1 the seed ran (14,792, one drafter: nothing to all-reduce)
    layout = bundled.execute(
        """select layout from topology_estimate where workload_id = 'dflash-qwen36-27b'
           and platform_id = 'ws-rtxpro6000-4' and n_gpus = 4"""
    ).fetchone()[0]
    assert layout == "3+1 (3 target, 1 drafter)"


def test_no_layout_has_more_drafters_than_the_recipes_global_batch_has_sequences(bundled):
    # SpecForge's Qwen3.6-27B DFlash recipe trains on global batches of 8 sequences (8 ranks x
    # batch_size 1): sixteen GPUs sharing both roles would be sixteen drafters, each needing a
    # sequence of every step
    refused = bundled.execute(
        """select fits, refusal from topology_candidate where workload_id = 'dflash-qwen36-27b'
           and platform_id = 'hgx-b200-8' and layout = '16 shared (target and drafter on every GPU)'"""
    ).fetchone()
    assert refused == (False, "16 drafters need a global batch of 16 sequences or more; the job trains on 8")
    most = bundled.execute(
        """select max(consumers) from topology_estimate where workload_id = 'dflash-qwen36-27b' and fits"""
    ).fetchone()[0]
    assert most == 8
