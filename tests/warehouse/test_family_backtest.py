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


def test_other_families_results_loaded_as_runs_never_make_a_family_worse(offline_data):
    """Issue 34, item 6: Llama-2's bundled results alone, then with every other model family's
    bundled results loaded as the user's runs. Llama-2's held-out errors (leave one accelerator
    out), per kind, do not rise: a factor learnt from other workloads reaches it only where the
    backtest shows it helps."""
    import polars as pl

    from sources.bundled import load_benchmark_results
    from sources.kit.spec import Parsed
    from tests.conftest import OFFLINE_DAY
    from warehouse.build.rebuild import rebuild_estimates
    from warehouse.loading.load import RunContext, load_benchmarks
    from warehouse.questions.scratch import copy_inputs
    from warehouse.store import db
    from warehouse.store.reader import connect_reader

    source = connect_reader(str(offline_data / "warehouse.duckdb"))
    families = dict(source.execute(
        "select w.workload_id, m.family from workload w join model m using (model_id)").fetchall())
    errors = {}
    for runs in (False, True):
        con = db.connect(":memory:")
        copy_inputs(source, con)
        llama2 = [w for w, family in families.items() if family == "llama-2"]
        con.execute("delete from benchmark_result where not list_contains(?, workload_id)", [llama2])
        if runs:
            others = load_benchmark_results().rows.filter(
                pl.col("workload_id").replace_strict(families, default="") != "llama-2",
                pl.col("source") == "bundled_mlperf",
            ).with_columns(pl.lit("user_runs").alias("source"))
            run = RunContext.new("runs", OFFLINE_DAY)
            load_benchmarks(con, "user_runs", Parsed(others), run, [f"user_runs/{OFFLINE_DAY}/runs.jsonl"])
            assert con.execute("select count(*) from benchmark_result where source = 'user_runs'").fetchone()[0] > 150
        rebuild_estimates(con, "family", OFFLINE_DAY)
        errors[runs] = {kind: (n, p50, p90) for kind, n, p50, p90 in con.execute(
            """select kind, count(*), quantile_cont(loao_ape, 0.5), quantile_cont(loao_ape, 0.9) from backtest
               where list_contains(?, workload_id) group by all""", [llama2]).fetchall()}
        con.close()
    source.close()
    assert errors[True].keys() == errors[False].keys() == {"finetune_lora", "serving"}
    for kind, (n, p50, p90) in errors[True].items():
        alone_n, alone_p50, alone_p90 = errors[False][kind]
        assert n == alone_n and p50 <= alone_p50 + 1e-12 and p90 <= alone_p90 + 1e-12, kind
