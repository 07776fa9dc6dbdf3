"""The report tests' shared nights, built once per session (about half a minute).

Night D1, whose quotes file brought a cheap L40S quote, and its report; a backfill of an older
day D0 (`gpucalc ingest`: an old observation of that quote and an offer nobody had seen); the
quote's new price ingested on D2; night D2 through the Prefect flow; night D2 again on the
same data. The quote's
instance name is hostile (an HTML tag, table pipes, a javascript: link) to prove the escaping.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

D0, D1, D2 = date(2026, 11, 20), date(2026, 11, 24), date(2026, 11, 25)
HOSTILE = "8x L40S <b>|quoted|</b> [x](javascript:alert(1))"
HEADER = "provider,region,instance_type,gpu_name,gpus_per_instance,usd_per_instance_hour,pricing\n"
QUOTE = 'example-neocloud,us-east,"{name}",L40S,8,{usd},on_demand\n'
OTHER = "example-neocloud,us-east,1x L4 (old),L4,1,9.00,on_demand\n"  # an offer only the backfill brings


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def nights(request, tmp_path_factory):
    """The three nights, their reports and the flow run's result (this module's docstring), and a
    reader held open on the finished warehouse, which nothing writes after, so each later connection
    to it in this process (the tests' queries, the report's, the CLI's) finds it already open."""
    from flows.nightly import nightly
    from reports.render import write_report
    from sources.kit import raw_store
    from sources.kit.spec import Payload
    from warehouse.loading.backfill import ingest_file
    from warehouse.loading.load import RunContext
    from warehouse.loading.writer import new_run_id, parse_kept, write_run
    from warehouse.store.reader import connect_reader
    from warehouse.store.workspace import Workspace

    data = tmp_path_factory.mktemp("nights")
    files = tmp_path_factory.mktemp("quotes")
    workspace = Workspace.resolve(data)
    warehouse, reports = workspace.warehouse, workspace.reports_dir

    def quotes(name: str, usd: float, extra: str = "") -> Path:
        path = files / name
        path.write_text(HEADER + QUOTE.format(name=HOSTILE, usd=usd) + extra)
        return path

    def night(day: date, mode: str = "offline", loads: list | None = None) -> None:
        run = RunContext.new(new_run_id(day), day)
        write_run(workspace, run, mode, loads or [], bundled_prices=True)

    v1 = quotes("v1.csv", 0.8)  # $0.10 per GPU-hour: the cheapest GPU-hour there is
    raw_store.save(Payload("quotes_file", "v1.csv", v1.read_bytes(), str(v1)), workspace.raw_dir, D1)
    night(D1, "online", [parse_kept("quotes_file", workspace.raw_dir, D1)])
    first = write_report(warehouse, reports, D1)
    night1 = folder_bytes(reports / D1.isoformat())
    ingest_file("quotes", quotes("old.csv", 4.0, OTHER), None, D0, workspace)  # backfill of an older day
    ingest_file("quotes", quotes("v2.csv", 7.2), None, D2, workspace)  # $0.90 per GPU-hour tonight
    request.getfixturevalue("prefect_harness")
    state = nightly(run_date=D2, offline=True, data_dir=str(data), return_state=True)
    flow_result = state.result()
    night2 = folder_bytes(reports / D2.isoformat())
    night(D2)  # the same night again, on the same data
    again = write_report(warehouse, reports, D2)
    reader = connect_reader(warehouse)
    yield SimpleNamespace(
        data=data, warehouse=warehouse, reports=reports, first=first, night1=night1, night2=night2, again=again,
        again_files=folder_bytes(reports / D2.isoformat()), flow_result=flow_result,
        flow_run_id=state.state_details.flow_run_id, reader=reader,
    )
    reader.close()


def query(nights, sql: str, params=None):
    cursor = nights.reader.cursor()
    try:
        return cursor.execute(sql, params or []).fetchall()
    finally:
        cursor.close()


