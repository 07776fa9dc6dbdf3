"""Leave one model family out (issue 34, items 5 and 6): every result predicted as a family nobody
measured would be, and estimates of such a family take other families' factors only where that
backtest shows they help, so more measured results of other workloads never make them worse."""

from __future__ import annotations

import math

import pytest


@pytest.fixture(scope="module")
def night(tmp_path_factory, offline_data):
    """A read-only connection to a private copy of the bundled night."""
    import shutil

    import duckdb

    data = tmp_path_factory.mktemp("family")
    shutil.copy(offline_data / "warehouse.duckdb", data / "warehouse.duckdb")
    con = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    yield con
    con.close()


def test_a_point_is_predicted_from_the_other_families_on_its_own_accelerator(night):
    (source, ref, row, gpu, kind, family, factor, reach, points), = night.execute("""
        select source, source_ref, source_row, gpu_id, scenario_kind, model_family, factor, reach, from_points
        from backtest_family where reach = 1 order by source, source_ref, source_row limit 1""").fetchall()
    # by hand: the geometric mean of the other families' latest ratios of that kind on that GPU
    ratios = [r for (r,) in night.execute("""
        select p.ratio from calibration_point p join workload w using (workload_id) join model m using (model_id)
        where p.latest and p.gpu_id = ? and p.scenario_kind = ? and m.family <> ?""", [gpu, kind, family]).fetchall()]
    assert points == len(ratios) > 0
    assert factor == pytest.approx(math.exp(sum(math.log(r) for r in ratios) / len(ratios)))


def test_a_family_nobody_measured_takes_other_families_factors_only_where_they_helped(night):
    trust = {(k, c): (t, m, d) for k, c, t, m, d in night.execute(
        "select kind, class, trusted, median_ape, median_default_ape from family_trust").fetchall()}
    for trusted, median, default in trust.values():
        assert trusted == (median < default)  # every class here has 5 points or more
    sxm = trust["serving:Server", "Offline / Server on SXM-class accelerators"]
    assert sxm[0] is False  # other families' factors made a new family's Server estimate worse
    # DeepSeek-R1 (no DeepSeek result bundled) keeps the documented efficiencies on every platform...
    levels = {lv for (lv,) in night.execute(
        "select distinct level from calibration_choice where workload_id = 'deepseek-r1-mtp'").fetchall()}
    assert levels == {0}
    # ...while a Llama-2 chat job, whose family has Server results, is left to calibration_trust
    # alone: it takes the other Server workloads' factors at the first level that backtest trusts
    # (with Inference v5.0's Server results none beats the documented efficiencies: level 0)
    trusted = [lv for (lv,) in night.execute("""select level from calibration_trust
        where workload_id = 'llama2-70b-chat' and level >= 5 and trusted order by level""").fetchall()]
    ((level,),) = night.execute("""select level from calibration_choice
        where workload_id = 'llama2-70b-chat' and platform_id = 'hgx-h100-8' and n_gpus = 8""").fetchall()
    assert level == (trusted[0] if trusted else 0)


def test_the_backtest_prints_the_family_left_out_beside_the_uncalibrated_model(offline_data):
    from tests.flows.cli_helpers import gpucalc

    result = gpucalc("backtest", "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Leave one model family out" in text
    line = next(li for li in text.splitlines() if li.strip().startswith("serving:Server")
                and "SXM-class" in li)
    assert line.rstrip().endswith("no")
