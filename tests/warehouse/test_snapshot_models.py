"""The report snapshots (095_night_*.sql) run only where they have something to do: a nightly run
that keeps one, or a warehouse that lacks their tables (warehouse/rebuild.py)."""

from datetime import date

from warehouse import db
from warehouse.rebuild import SNAPSHOT_MODELS, rebuild_estimates, snapshot_tables

DAY = date(2026, 11, 29)


def _snapshot_tables() -> set[str]:
    return snapshot_tables(db.model_files())


def test_the_snapshots_are_the_last_models_and_each_makes_its_table():
    names = [file for file, _ in db.model_files()]
    snapshots = [name for name in names if name.startswith(SNAPSHOT_MODELS)]
    assert snapshots and names[-len(snapshots):] == snapshots  # nothing after them is skipped with them
    assert _snapshot_tables() == {name.removesuffix(".sql").removeprefix(SNAPSHOT_MODELS) for name in snapshots}


def test_a_rebuild_that_keeps_no_snapshot_still_makes_the_tables_then_leaves_them_be():
    con = db.connect(":memory:")
    try:
        rebuild_estimates(con, "ingest-1", DAY)  # no nightly run in run_log: nothing to keep
        present = db.objects(con)
        assert all(present.get(table) == "table" for table in _snapshot_tables())
        assert con.execute("select count(*) from night_run").fetchone() == (0,)
        con.execute("insert into run_log (run_id, run_date, mode, status) values ('night-1', ?, 'offline', 'running')",
                    [DAY])
        rebuild_estimates(con, "night-1", DAY)  # a night: it keeps its snapshot
        assert con.execute("select run_id from night_run").fetchall() == [("night-1",)]
        rebuild_estimates(con, "ingest-2", DAY)  # a later ingest of the day leaves the night's snapshot
        assert con.execute("select run_id from night_run").fetchall() == [("night-1",)]
    finally:
        con.close()


def test_the_guard_and_the_nights_date_are_the_rebuilds_own_and_no_other_sessions(tmp_path):
    path = str(tmp_path / "warehouse.duckdb")
    con = db.connect(path)
    try:
        con.execute("insert into run_log (run_id, run_date, mode, status) values ('night-1', ?, 'offline', 'running')",
                    [DAY])
        rebuild_estimates(con, "night-1", DAY)
        assert con.execute("select run_id, run_date from night_run").fetchall() == [("night-1", DAY)]
        assert con.execute("select night_snapshot_wanted()").fetchone() == (True,)
    finally:
        con.close()
    reader = db.connect(path, read_only=True)
    try:  # the macros are stored with the warehouse; the answers they read are the rebuild's session's
        assert reader.execute("select night_snapshot_wanted(), night_run_date()").fetchone() == (False, None)
    finally:
        reader.close()
