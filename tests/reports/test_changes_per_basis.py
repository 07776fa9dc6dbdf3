"""What changed, per price basis (issue 36, item 2): a new $1.10 per GPU-hour on-demand H100 quote
between two nights moves the on-demand winner of the jobs it makes cheapest, whatever spot,
reserved or owned cost, and the report names each move and counts it.

Nights on a copy of the bundled warehouse: D1 is the copy's own night (2026-11-29, with its report
snapshot; an earlier date would be a backfill, which keeps none), D2 the day after; both within
the snapshot's 30-day freshness window (its quotes are of 2026-11-01), so its quotes rank on both."""

from __future__ import annotations

import json
from datetime import date

import duckdb

from tests.conftest import OFFLINE_DAY
from tests.reports.conftest import folder_bytes

D1, D2 = OFFLINE_DAY, date(2026, 11, 30)
HEADER = "provider,region,instance_type,gpu_name,gpus_per_instance,usd_per_instance_hour,pricing,observed_at\n"
# $8.80 per instance-hour for 8 GPUs: $1.10 per GPU-hour (the plausibility floor for an H100 is about $0.14)
QUOTE = f"cheap-cloud,us-east,8x H100 SXM (new),H100,8,8.80,on_demand,{D2.isoformat()}\n"

# Per workload, the on-demand winner of one night (the ranking winners() uses, in SQL).
WINNER = """
    select workload_id, provider, instance_type, platform_id, n_gpus, usd_total, usd_per_mtok from (
        select *, row_number() over (partition by workload_id order by round(usd_total, 6), time_to_finish_h,
                                     platform_id, n_gpus, provider, region, zone, instance_type) as r
        from night_option where run_date = ? and pricing = 'on_demand') where r = 1"""


def test_a_new_on_demand_quote_moves_the_on_demand_winners_it_undercuts(offline_copy, tmp_path):
    from reports.markdown import escape
    from reports.render import write_report
    from warehouse.loading.backfill import ingest_file
    from warehouse.loading.load import RunContext
    from warehouse.loading.writer import new_run_id, write_run
    from warehouse.store.workspace import Workspace

    # D1's night is the copy's own: D2's report compares with its snapshot, so neither it nor its report is redone
    workspace = Workspace.resolve(offline_copy)
    quotes = tmp_path / "h100.csv"
    quotes.write_text(HEADER + QUOTE)
    assert ingest_file("quotes", quotes, None, D2, workspace).ok
    write_run(workspace, RunContext.new(new_run_id(D2), D2), "offline", [], bundled_prices=True)
    write_report(workspace.warehouse, workspace.reports_dir, D2)

    con = duckdb.connect(workspace.warehouse, read_only=True)
    try:
        before = {row[0]: row for row in con.execute(WINNER, [D1]).fetchall()}
        after = {row[0]: row for row in con.execute(WINNER, [D2]).fetchall()}
        other_bases_moved = con.execute(
            """with w as (select run_date, workload_id, pricing,
                                 arg_min(platform_id || '|' || n_gpus || '|' || provider || '|' ||
                                         coalesce(instance_type, ''), usd_total) as winner
                          from night_option where run_date in (?, ?) and pricing <> 'on_demand' group by all)
               select count(*) from w a join w b using (workload_id, pricing)
               where a.run_date = ? and b.run_date = ? and a.winner <> b.winner""", [D1, D2, D1, D2]).fetchone()[0]
    finally:
        con.close()
    assert other_bases_moved == 0  # only the on-demand market changed
    moved = {w for w, row in after.items() if row[1] == "cheap-cloud"}
    assert moved and all(before[w][1] != "cheap-cloud" for w in moved)
    # every other workload's on-demand winner is the same option on both nights
    assert all(before[w][1:5] == after[w][1:5] for w in after if w not in moved)

    files = folder_bytes(workspace.reports_dir / D2.isoformat())
    page = files["changes.md"].decode()
    section = page.split("## Winners per price basis\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| workload")]
    assert {row.split(" | ")[0].removeprefix("| ") for row in rows} == moved
    for row in rows:
        workload = row.split(" | ")[0].removeprefix("| ")
        was, now = before[workload], after[workload]
        assert " | on\\_demand | " in row and escape("cheap-cloud 8x H100 SXM (new), $1.10/GPU-h") in row
        assert escape(f"{was[1]} {was[2]}") in row  # the old winner's provider and instance
        assert now[5] < was[5]
        assert f"{_usd(was[5])} → {_usd(now[5])} (" in row  # the cost change
        if was[6] is not None and now[6] is not None:
            assert f"{_usd(was[6])} → {_usd(now[6])}" in row  # per million tokens, where it serves
        assert "is a new offer" in row  # why: the quote the new winner rests on
    line = f"{len(moved)} winner{'s' if len(moved) != 1 else ''} changed: on_demand {len(moved)}"
    assert line in page and line in files["index.md"].decode()
    assert line in json.loads(files["summary.json"])["headline"]


def _usd(value: float) -> str:
    from warehouse.questions.plain_text import fmt_usd

    return fmt_usd(value)
