"""Leave the latest round out (issue 34, items 3 and 5): each workload x GPU's latest result is
predicted from the round before it on the same accelerator, which says how far software moved
between rounds; `gpucalc backtest` prints it per class and pair of rounds
(tests/warehouse/test_backtest_baseline.py reads it there)."""

from __future__ import annotations

import math

import pytest

from tests.flows.cli_helpers import query

# MLPerf Inference v5.0, H100-SXM Llama-2-70B Offline, six 8-GPU systems: tokens/s per GPU
V50_H100_OFFLINE = (3862.4625, 3885.45, 3913.35, 3904.75, 3896.8375, 3902.1)


def test_a_latest_result_is_predicted_from_the_round_before_it(offline_data):
    """H100-SXM Llama-2-70B Offline's latest round is v5.1 (16 and 32 GPUs, 3,896.975 and
    3,902.47 tokens/s per GPU). The model gives the same rate per GPU at every count here, so
    the prediction from v5.0 is the geometric mean of v5.0's six results: 3,894.12, 0.073% and
    0.214% off."""
    rows = query(offline_data, """
        select gpu_count, from_round, from_points, predicted_per_gpu, measured_per_gpu, ape from backtest_round
        where workload_id = 'llama2-70b-offline' and gpu_id = 'H100-SXM' order by gpu_count""")
    expected = math.exp(sum(math.log(v) for v in V50_H100_OFFLINE) / len(V50_H100_OFFLINE))
    assert expected == pytest.approx(3894.1233, abs=1e-3)
    assert [(n, src, k) for n, src, k, *_ in rows] == [(16, "v5.0", 6), (32, "v5.0", 6)]
    for (_n, _src, _k, predicted, measured, ape), truth in zip(rows, (3896.975, 3902.46875), strict=True):
        assert predicted == pytest.approx(expected, rel=1e-9)
        assert measured == pytest.approx(truth, rel=1e-9)
        assert ape == pytest.approx(abs(expected - truth) / truth, rel=1e-9)


def test_only_a_workload_and_gpu_measured_in_an_earlier_round_is_held_out_this_way(offline_data):
    # the seed's run has no round before it; every row predicts a latest point from an older one
    [(seed,)] = query(offline_data, "select count(*) from backtest_round where workload_id = 'dflash-qwen36-27b'")
    [(older,)] = query(offline_data, "select count(*) from backtest_round where from_round >= round")
    assert (seed, older) == (0, 0)
