"""The report snapshots (095_night_*.sql) run only where they have something to do: a nightly run
that keeps one, or a warehouse that lacks their tables (warehouse/build/rebuild.py)."""

from datetime import date

from warehouse.build.manifest import manifest
from warehouse.build.rebuild import rebuild_estimates, snapshot_tables, snapshot_views
from warehouse.store import db

DAY = date(2026, 11, 29)


def _snapshot_tables() -> set[str]:
    return snapshot_tables(db.model_files())


def test_the_snapshots_are_the_last_models_and_each_makes_its_table_or_view():
    names = [file for file, _ in db.model_files()]
    snapshots = list(manifest().snapshots)
    assert snapshots and names[-len(snapshots):] == snapshots  # nothing after them is skipped with them
    assert _snapshot_tables() == {name.removesuffix(".sql").removeprefix("095_")
                                  for name in manifest().snapshot_tables}
    assert snapshot_views(db.model_files()) == {name.removesuffix(".sql").removeprefix("096_")
                                                for name in manifest().snapshot_views} == {"night_option"}


def test_a_rebuild_that_keeps_no_snapshot_still_makes_the_tables_then_leaves_them_be():
    con = db.connect(":memory:")
    try:
        rebuild_estimates(con, "ingest-1", DAY)  # no nightly run in run_log: nothing to keep
        present = db.objects(con)
        assert all(present.get(table) == "table" for table in _snapshot_tables())
        assert present.get("night_option") == "view"
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


def test_a_warehouse_whose_night_options_are_one_table_keeps_every_row_when_they_are_split(offline_copy):
    """Before 2026-12-04 `night_option` was one wide table: the first rebuild after moves its rows
    into night_option_pair, night_topology and night_quote, and the view gives back every row."""
    from warehouse.store.workspace import Workspace

    con = db.connect(Workspace.resolve(offline_copy).warehouse)
    try:
        before = _as_one_wide_table(con)
        assert before > 1000
        nulls = con.execute("select count(*) from night_option where zone is null or capacity_note is null").fetchone()
        assert nulls[0] > 0  # rows of one topology or quote alike in their nulls too
        con.execute("create temp table kept as select * from night_option")
        rebuild_estimates(con, "ingest-1", DAY)  # keeps no snapshot of its own: only the move
        assert db.objects(con)["night_option"] == "view"
        assert con.execute("select count(*) from night_option").fetchone() == (before,)
        for left, right in (("night_option", "kept"), ("kept", "night_option")):
            assert con.execute(f"select count(*) from (from {left} except all from {right})").fetchone() == (0,)
        topologies, quotes = con.execute(
            """select count(distinct (workload_id, platform_id, n_gpus)),
                      count(distinct (provider, region, zone, instance_type, pricing, price_source))
               from kept""").fetchone()
        assert con.execute("select count(*) from night_topology").fetchone() == (topologies,)
        assert con.execute("select count(*) from night_quote").fetchone() == (quotes,)
        assert before > topologies > quotes
    finally:
        con.close()


def test_a_wide_night_option_table_without_the_later_columns_moves_with_them_empty(offline_copy):
    from warehouse.store.workspace import Workspace

    con = db.connect(Workspace.resolve(offline_copy).warehouse)
    try:
        rows = _as_one_wide_table(con, dropped=("purpose", "capacity_note", "fleet_gpus"))
        rebuild_estimates(con, "ingest-1", DAY)
        assert con.execute(
            "select count(*), count(purpose), count(capacity_note), count(fleet_gpus), count(usd_total) "
            "from night_option").fetchone() == (rows, 0, 0, 0, rows)
    finally:
        con.close()


def _as_one_wide_table(con, dropped: tuple[str, ...] = ()) -> int:
    """Turn the night's options back into the one wide table an older warehouse holds; its rows."""
    con.execute("create table night_option_wide as select * from night_option")
    con.execute("drop view night_option")
    for table in ("night_option_pair", "night_topology", "night_quote"):
        con.execute(f"drop table {table}")
    for column in dropped:
        con.execute(f"alter table night_option_wide drop column {column}")
    con.execute("alter table night_option_wide rename to night_option")
    return con.execute("select count(*) from night_option").fetchone()[0]


def test_an_empty_wide_table_moves_nothing_and_the_nights_own_snapshot_lands_in_full(tmp_path):
    """DuckDB 1.5.5 keeps none of an insert that fills a row group when an insert from an empty
    table went first in the same transaction: moving an empty `night_option` that way would lose
    the night's own options, inserted next in the same rebuild. Small row groups make a small
    night fill several."""
    import duckdb

    from warehouse.build.migrations import night_option_split

    con = duckdb.connect()
    con.execute(f"attach '{tmp_path / 'w.duckdb'}' as w (row_group_size 2048)")
    con.execute("use w")
    con.execute("create table night_option (run_date date, run_id varchar, workload_id varchar, usd_total double)")
    con.execute("begin")
    night_option_split.move_rows(con, db.model_files())
    con.execute("drop table night_option")
    con.execute("insert into night_option_pair (run_date, topology_id, quote_id, usd_total) "
                "select date '2026-11-29', i, i, i from range(10000) r(i)")
    con.execute("commit")
    assert con.execute("select count(*) from night_option_pair").fetchone() == (10000,)
