"""Each estimate states the band of its own class (issue 34, item 5): a class's held-out errors
say nothing of another's, so MoE serving, which no bundled result measures, earns no band from
dense results, and PCIe cards carry their own."""

from __future__ import annotations

import statistics

import pytest

from tests.flows.cli_helpers import query

PCIE = "PCIe, NVL and workstation cards (serving)"


def _quantile(values: list[float], q: float) -> float:
    """Linear interpolation between order statistics, as DuckDB's quantile_cont."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def test_a_class_band_is_the_quantiles_of_that_class_held_out_errors(offline_data):
    # every serving point of a PCIe card predicted at level 4 (same workload, other GPUs) for a
    # workload that level helps (calibration_trust), by hand
    errors = [ape for (ape,) in query(offline_data, """
        select l.ape from backtest_level l join gpu g on g.gpu_id = l.gpu_id
        join calibration_trust k on k.level = l.level and k.workload_id = l.workload_id and k.trusted
        where l.kind = 'serving' and l.level = 4 and g.form_factor ilike 'PCIe%'""")]
    assert len(errors) >= 5
    ((p50, p90, points, basis),) = query(offline_data, """
        select error_p50, error_p90, points, basis from error_band_class
        where kind = 'serving' and class = ? and level = 4""", [PCIE])
    assert points == len(errors) and basis == f"backtest: {len(errors)} points of {PCIE}"
    assert p50 == pytest.approx(statistics.median(errors))
    assert p90 == pytest.approx(_quantile(errors, 0.9))
    # not the band of the same level over every serving point, which the SXM cards dominate
    ((all_p90,),) = query(offline_data, "select error_p90 from error_band where kind = 'serving' and level = 4")
    assert p90 != pytest.approx(all_p90)


def test_moe_serving_estimates_state_no_band_where_no_moe_result_was_held_out(offline_data):
    rows = query(offline_data, """
        select count(*), count(error_p50), count(error_p90), max(error_points), min(error_basis)
        from topology_estimate where workload_id = 'deepseek-r1-mtp'""")
    assert rows == [(rows[0][0], 0, 0, 0, "unvalidated: 0 points of MoE serving (DeepSeek-R1 class)")]
    assert rows[0][0] > 0
    # a dense Offline/Server estimate on an SXM card keeps a band of its own class
    ((p50, basis),) = query(offline_data, """
        select error_p50, error_basis from topology_estimate
        where workload_id = 'llama2-70b-chat' and platform_id = 'hgx-h100-8' order by n_gpus limit 1""")
    assert p50 is not None and basis.endswith(" points of Offline / Server on SXM-class accelerators")


def test_the_stated_bands_hold_about_as_often_as_they_say_per_class(offline_data):
    # in-sample, each class with a band of its own holds its p90 on 85-95% of its points
    rows = query(offline_data, """
        select class, count(*) filter (where error_p90 is not null),
               count(*) filter (where within_p90), count(*) filter (where error_p90 is null)
        from backtest_baseline group by class""")
    counts = {c: (banded, within, unbanded) for c, banded, within, unbanded in rows}
    banded, within, unbanded = counts[PCIE]
    # a share of n points moves in steps of 1/n: within one point of 85-95%
    assert 0.85 * banded - 1 <= within <= 0.95 * banded + 1 and unbanded == 0  # it held 30% under one band
    # the Interactive results of Inference v5.0 earn their class a band: every point states one
    assert counts["Interactive (dense)"][0] >= 5 and counts["Interactive (dense)"][2] == 0
