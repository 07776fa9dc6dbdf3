"""A failed night never replaces a good report of the same day, on disk or in the warehouse's
snapshot of it, and its Prefect flow run ends Failed.

A night fails cheaply here: one live source (Vast) answering HTTP 500 to every attempt through the
fake HTTP session (tests/sources/fakes.py), so every live source tried failed. The good night
before it is the run's bundled night (`offline_copy`, what `gpucalc run --offline` leaves) and
its report; the good nightly flow run itself is tests/flows/test_nightly.py's.
"""

from pathlib import Path

import pytest

from sources import vast
from tests.conftest import OFFLINE_DAY
from tests.flows.cli_helpers import gpucalc, query
from tests.sources.fakes import session_factory

DAY = OFFLINE_DAY


@pytest.fixture(autouse=True)
def _prefect(prefect_harness):
    """The run's one Prefect server (conftest), its flows run as `gpucalc run` runs them on its own."""
    yield


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def network_down(monkeypatch):
    make, _fake = session_factory({vast.URL: [(500, b"upstream error", {})]})
    monkeypatch.setattr("sources.kit.http.make_session", make)


def test_a_failed_night_keeps_the_good_report_of_its_day_and_its_flow_run_fails(offline_copy, network_down):
    from flows.nightly import nightly
    from reports.render import write_report
    from warehouse.store.workspace import Workspace

    data = offline_copy  # DAY's good night as `gpucalc run --offline` leaves it; its report written below
    workspace = Workspace.resolve(data)
    write_report(workspace.warehouse, workspace.reports_dir, DAY)
    ((good_run,),) = query(data, "select run_id from run_log where run_date = ? and status = 'success'", [DAY])
    folder = data / "reports" / DAY.isoformat()
    before = folder_bytes(folder)
    assert "index.md" in before and "summary.json" in before

    state = nightly(run_date=DAY, offline=False, data_dir=str(data), sources=["vast"], return_state=True)
    assert state.is_failed()
    assert "every live source failed (vast)" in state.message
    failed = state.result(raise_on_failure=False)
    assert failed["status"] == "failed"
    assert failed["kept"] == f"kept the report of {good_run} for {DAY.isoformat()}: this night failed"
    assert failed["report"] == str(folder / "index.md")
    assert folder_bytes(folder) == before  # byte for byte the good night's report
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")]  # nothing half-built beside it
    assert failed["kept"] in Path(failed["log"]).read_text()
    # the warehouse kept the good night's snapshot too: the day's report rebuilds as it was
    assert query(data, "select run_id from night_run where run_date = ?", [DAY]) == [(good_run,)]
    rebuilt = gpucalc("report", "--date", DAY.isoformat(), "--data-dir", str(data))
    assert rebuilt.exit_code == 0, rebuilt.output
    assert folder_bytes(folder) == before


def test_a_failed_night_with_no_earlier_report_of_its_day_still_writes_one(tmp_path, network_down):
    from flows.nightly import nightly

    state = nightly(run_date=DAY, offline=False, data_dir=str(tmp_path), sources=["vast"], return_state=True)
    assert state.is_failed()
    result = state.result(raise_on_failure=False)
    assert result["status"] == "failed" and result["kept"] is None
    assert (tmp_path / "reports" / DAY.isoformat() / "index.md").is_file()
