"""The night's interactivity curves (issues 35 and 36): what `compare JOB --sweep` answers, kept
with the night, said on the front page where the cheaper platform changes, and drawn."""

from __future__ import annotations

import json

import pytest

from reports.chart_set import curve_chart_file
from tests.conftest import OFFLINE_DAY
from tests.flows.cli_helpers import gpucalc, query
from warehouse.store.location import BadWarehouse

SEED = {"deepseek-r1-mtp": ("gb200-nvl72", "hgx-b200-8")}


@pytest.fixture(scope="module")
def curved(tmp_path_factory, offline_data):
    """The bundled night run again on a copy with every serving job's curve, the seed's pair (and
    two a catalog cannot hold) in GPUCALC_CURVES, and its report."""
    import os
    import shutil

    from reports.render import write_report
    from warehouse.loading.load import RunContext
    from warehouse.loading.writer import new_run_id, write_run
    from warehouse.store.workspace import Workspace

    data = tmp_path_factory.mktemp("curved")
    shutil.copytree(offline_data, data, dirs_exist_ok=True)
    workspace = Workspace.resolve(data)
    before = os.environ["GPUCALC_CURVES"]
    os.environ["GPUCALC_CURVES"] = ("auto; deepseek-r1-mtp=gb200-nvl72,hgx-b200-8; no-such-job=hgx-b200-8; "
                                    "llama2-70b-chat=no-such-platform")
    try:
        write_run(workspace, RunContext.new(new_run_id(OFFLINE_DAY), OFFLINE_DAY), "offline", [], bundled_prices=True)
    finally:
        os.environ["GPUCALC_CURVES"] = before
    write_report(workspace.warehouse, workspace.reports_dir, OFFLINE_DAY)
    ((kept,),) = query(data, "select count(*) from night_curve where run_date = ?", [OFFLINE_DAY])
    return data, kept


def test_the_night_keeps_what_compare_sweep_answers_on_the_same_inputs(curved):
    data, kept = curved
    rows = query(data, """select platform_id, pricing, tokens_per_s_per_user, usd_per_mtok, tokens_per_s_per_gpu,
                                 provider from night_curve where run_date = ? and workload_id = 'deepseek-r1-mtp'
                          order by all""", [OFFLINE_DAY])
    # the seed's pair beside the platforms the night's decisions picked for the job
    decided = {p for (p,) in query(data, """select distinct platform_id from decision
                                            where workload_id = 'deepseek-r1-mtp' and platform_id is not null""")}
    assert {r[0] for r in rows} == decided | set(SEED["deepseek-r1-mtp"])
    result = gpucalc("compare", "deepseek-r1-mtp", "--sweep", "--platforms", ",".join(sorted({r[0] for r in rows})),
                     "--pricing", "on_demand", "--json", "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    answered = sorted((p["platform_id"], p["pricing"], p["tokens_per_s_per_user"], p["usd_per_mtok"],
                       p["tokens_per_s_per_gpu"], p["provider"]) for p in json.loads(result.stdout)["points"])
    assert [r for r in rows if r[1] == "on_demand"] == answered


def test_every_serving_job_gets_a_curve_on_the_platforms_its_decisions_picked(curved):
    data, kept = curved
    jobs = {w for (w,) in query(data, """select workload_id from workload
                                         where kind = 'serving' and coalesce(purpose, 'job') = 'job'""")}
    curved_jobs = {w for (w,) in query(data, "select distinct workload_id from night_curve where run_date = ?",
                                       [OFFLINE_DAY])}
    assert curved_jobs == jobs and kept > 0  # the unknown job and the unknown platform are skipped
    ((llama,),) = query(data, """select list(distinct platform_id order by platform_id) from night_curve
                                 where run_date = ? and workload_id = 'llama2-70b-chat'""", [OFFLINE_DAY])
    assert llama == sorted(p for (p,) in query(data, """select distinct platform_id from decision
        where workload_id = 'llama2-70b-chat' and platform_id is not null"""))
    pages = data / "reports" / OFFLINE_DAY.isoformat() / "workloads"
    assert all(f"](../{curve_chart_file(job)})" in (pages / f"{job}.md").read_text() for job in jobs)


def test_the_front_page_says_where_the_cheaper_platform_changes_and_draws_it(curved):
    data, _ = curved
    folder = data / "reports" / OFFLINE_DAY.isoformat()
    index = (folder / "index.md").read_text()
    ((cheap_low,),) = query(data, """select arg_min(platform_id, usd_per_mtok) from night_curve
        where run_date = ? and pricing = 'on_demand' and tokens_per_s_per_user = 10""", [OFFLINE_DAY])
    said = next(line for line in index.splitlines() if line.startswith("Against tokens/s per user (on-demand"))
    assert f"{cheap_low}" in said and "tokens/s per user" in said
    chart = curve_chart_file("deepseek-r1-mtp")
    assert (folder / chart).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"]({chart})" in index
    assert f"](../{chart})" in (folder / "workloads" / "deepseek-r1-mtp.md").read_text()


@pytest.mark.parametrize(("value", "curves"), [
    (None, (True, {"deepseek-r1-mtp": ("gb200-nvl72", "hgx-b200-8")})),  # every job, and the seed's question
    ("off", (False, {})),
    ("auto", (True, {})),
    ("a=p1, p2; b=p3", (False, {"a": ("p1", "p2"), "b": ("p3",)})),
])
def test_the_curves_a_night_keeps_are_a_setting(monkeypatch, value, curves):
    from warehouse.store.settings import Curves, night_curves

    curves = Curves(*curves)

    if value is None:
        monkeypatch.delenv("GPUCALC_CURVES", raising=False)
    else:
        monkeypatch.setenv("GPUCALC_CURVES", value)
    assert night_curves() == curves


def test_a_curve_setting_that_cannot_be_read_is_one_sentence(monkeypatch):
    from warehouse.store.settings import night_curves

    monkeypatch.setenv("GPUCALC_CURVES", "deepseek-r1-mtp")
    with pytest.raises(BadWarehouse, match="GPUCALC_CURVES='deepseek-r1-mtp': give parts joined by ';'"):
        night_curves()
