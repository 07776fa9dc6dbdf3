"""The warehouse setting, the pinned extensions, time travel, MotherDuck's sentences and the
PostgreSQL turn: the parts of the backends that need no nightly run.

The full runs on each backend are in tests/flows/test_backends.py.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from flows.cli import app
from warehouse.store import db, lake, motherduck
from warehouse.store.location import BadWarehouse, parse
from warehouse.store.reader import connect_reader
from warehouse.store.workspace import Workspace


def test_one_setting_names_every_kind_of_warehouse(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse("data/warehouse.duckdb").uri == str(tmp_path / "data" / "warehouse.duckdb")
    assert parse("ducklake:sqlite:cat.sqlite").uri == f"ducklake:sqlite:{tmp_path / 'cat.sqlite'}"
    assert parse("ducklake:cat.ducklake").catalog == "duckdb"
    assert parse("ducklake:duckdb:cat.ducklake").uri == f"ducklake:{tmp_path / 'cat.ducklake'}"
    pg = parse("ducklake:postgres:host=db dbname=lake")
    assert (pg.catalog, pg.target, pg.local_file, pg.catalog_file) == ("postgres", "host=db dbname=lake", None, None)
    assert parse("ducklake:postgresql:dbname=lake").uri == "ducklake:postgres:dbname=lake"
    assert (parse("md:gpucalc").kind, parse("motherduck:gpucalc").uri) == ("motherduck", "md:gpucalc")
    for bad, why in [("", "is empty"), ("md:", "name the MotherDuck database"), ("ducklake:", "name the catalog"),
                     ("ducklake:postgres:", "give the PostgreSQL connection"), ("ducklake:mysql:x", "DuckDB, SQLite"),
                     ("s3://bucket/w.duckdb", "GPUCALC_LAKE_DATA_PATH")]:
        with pytest.raises(BadWarehouse, match=why):
            parse(bad)


def test_the_flag_beats_the_environment_which_beats_the_default(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUCALC_WAREHOUSE", raising=False)
    monkeypatch.delenv("GPUCALC_LAKE_DATA_PATH", raising=False)
    assert Workspace.resolve(tmp_path).warehouse == str(tmp_path / "warehouse.duckdb")  # a new user: unchanged
    assert Workspace.resolve(tmp_path).lake_data_path == f"{tmp_path / 'lake'}/"
    monkeypatch.setenv("GPUCALC_WAREHOUSE", "md:nightly")
    monkeypatch.setenv("GPUCALC_LAKE_DATA_PATH", "s3://bucket/gpucalc")
    assert Workspace.resolve(tmp_path).warehouse == "md:nightly"
    flagged = Workspace.resolve(tmp_path, f"ducklake:sqlite:{tmp_path}/c.sqlite")
    assert flagged.warehouse.startswith("ducklake:sqlite:/")
    assert flagged.lake_data_path == "s3://bucket/gpucalc/"


def test_a_bad_warehouse_setting_is_one_sentence_on_the_command_line(tmp_path):
    args = ["sql", "select 1", "--warehouse", "ducklake:mysql:x", "--data-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "DuckDB, SQLite or PostgreSQL" in result.output
    assert "Traceback" not in result.output


def test_the_extensions_load_from_their_wheels_for_the_pinned_duckdb():
    assert duckdb.__version__ == "1.5.5"  # the only release the extension wheels accept
    con = duckdb.connect(":memory:", config=lake.NO_AUTOLOAD)
    for name in ("ducklake", "sqlite_scanner", "postgres_scanner", "httpfs"):
        assert lake.extension_path(name).is_file()
    lake.load(con, "ducklake", "sqlite_scanner", "postgres_scanner")
    loaded = {r[0] for r in con.execute("select extension_name from duckdb_extensions() where loaded").fetchall()}
    assert {"ducklake", "sqlite_scanner", "postgres_scanner"} <= loaded


def test_an_extension_is_checked_once_per_process_and_again_when_its_file_changed(tmp_path, monkeypatch):
    """A lake connection after the first skips DuckDB's signature check of an extension file it
    checked, unchanged since, and then refuses unsigned extensions as any other; a changed file is
    checked again, and a file whose code changed is refused."""
    copy = tmp_path / "ducklake.duckdb_extension"
    shutil.copyfile(lake.extension_path("ducklake"), copy)
    monkeypatch.setattr(lake, "extension_path", lambda name: copy)
    for _ in range(2):  # checked, then loaded as checked before
        con = lake._with_extensions(["ducklake"])
        try:
            assert con.execute("select current_setting('allow_unsigned_extensions')").fetchone() == (False,)
        finally:
            con.close()
    with copy.open("r+b") as file:  # one byte of its code changed: the signature no longer matches
        file.seek(copy.stat().st_size // 2)
        byte = file.read(1)[0]
        file.seek(-1, 1)
        file.write(bytes([byte ^ 0xFF]))
    with pytest.raises(duckdb.IOException, match="its signature is either missing or invalid"):
        lake._with_extensions(["ducklake"])


def test_motherduck_without_a_token_or_a_network_is_one_sentence(tmp_path, monkeypatch):
    for name in motherduck.TOKEN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(app, ["sql", "select 1", "--warehouse", "md:gpucalc", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and result.output.strip() == (
        "md:gpucalc needs a MotherDuck access token: set motherduck_token in the environment "
        "(MotherDuck: Settings > Access Tokens)")
    # no network: what the extension raises when it cannot reach MotherDuck (never tried here)
    monkeypatch.setenv("motherduck_token", "t0ken")
    refused = duckdb.IOException('Initialization function "motherduck_duckdb_cpp_init" threw an exception: '
                                 '"Failed to download "http://api.motherduck.com/extension_version": '
                                 'Could not establish connection"')
    monkeypatch.setattr(lake, "load", lambda con, *names: (_ for _ in ()).throw(refused))
    with pytest.raises(BadWarehouse) as caught:
        db.connect("md:gpucalc")
    assert str(caught.value) == "could not reach MotherDuck for md:gpucalc: no network connection to MotherDuck " \
                                "from this machine"


def test_as_of_reads_the_lake_as_the_last_write_of_that_day_left_it(tmp_path):
    """Three writes on three days (the catalog's clock moved back by hand): each day reads its own."""
    uri = f"ducklake:sqlite:{tmp_path / 'cat.sqlite'}"
    con = lake.connect(parse(uri), data_path=str(tmp_path / "files") + "/")
    for value in (1, 2, 3):
        con.execute("create table if not exists t (x int)")
        con.execute("insert into t values (?)", [value])
    con.close()
    stamps = {2: "2026-11-27 12:00:00+00", 3: "2026-11-28 23:59:00+00"}  # snapshot 4 stays "now"
    with sqlite3.connect(tmp_path / "cat.sqlite") as catalog:
        catalog.execute("update ducklake_snapshot set snapshot_time = '2026-11-27 08:00:00+00' where snapshot_id <= 1")
        for snapshot, stamp in stamps.items():
            catalog.execute("update ducklake_snapshot set snapshot_time = ? where snapshot_id = ?", [stamp, snapshot])

    def rows(as_of):
        reader = connect_reader(uri, as_of)
        try:
            return [r[0] for r in reader.execute("select x from t order by x").fetchall()]
        finally:
            reader.close()

    assert rows(date(2026, 11, 27)) == [1]
    assert rows(date(2026, 11, 28)) == [1, 2]
    assert rows(datetime.now(UTC).date()) == [1, 2, 3]
    with pytest.raises(BadWarehouse, match="no snapshot on or before 2026-11-26; its history starts 2026-11-27"):
        rows(date(2026, 11, 26))
    with pytest.raises(BadWarehouse, match="--as-of needs a DuckLake warehouse"):
        connect_reader(str(Path(tmp_path / "cat.sqlite")), date(2026, 11, 27))


def test_a_writer_on_another_machine_holds_the_postgres_turn_so_this_one_waits_then_refuses(postgres_server, tmp_path):
    import psycopg

    from warehouse.store.pg_turn import LOCK_KEY, TURN_TABLE
    from warehouse.store.turns import Holder, WarehouseBusy

    conninfo = postgres_server.create_database("turns")
    uri = f"ducklake:postgres:{conninfo}"
    quotes = tmp_path / "q.csv"
    quotes.write_text("provider,instance_type,gpu_name,gpus_per_instance,usd_per_gpu_hour,observed_at\n"
                      "acme,a.1x,H100 SXM,1,2.5,2026-11-20\n")
    nightly = Holder("2026-11-29-021500000000", "2026-11-29", "online", 4242, "2026-11-29T02:15:00", host="node-b")
    other = psycopg.connect(conninfo, autocommit=True)  # the nightly run on node-b, mid-write
    try:
        other.execute(f"create table {TURN_TABLE} (lock_key bigint primary key, holder text)")
        other.execute(f"insert into {TURN_TABLE} values (%s, %s)", [LOCK_KEY, nightly.to_json()])
        assert other.execute("select pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()[0]
        result = CliRunner().invoke(app, ["ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29",
                                          "--warehouse", uri, "--data-dir", str(tmp_path / "data")],
                                    env={"GPUCALC_WRITE_WAIT_S": "1"})
    finally:
        other.close()  # node-b dies mid-write: PostgreSQL drops its lock; its row still says unfinished
    assert result.exit_code == 4, result.output
    assert "waiting for run 2026-11-29-021500000000 (online, pid 4242 on node-b" in result.output
    assert "refused: run 2026-11-29-021500000000 (online, pid 4242 on node-b" in result.output
    assert len(list((tmp_path / "data" / "run_journal").glob("*.json"))) == 1  # the refused run, for the next writer
    # the next writer gets the turn at once and learns the holder it replaces was interrupted
    from warehouse.store.pg_turn import pg_turn
    from warehouse.store.turns import me

    with pg_turn(parse(uri), me("r2", "2026-11-29", "ingest"), 5, None) as interrupted:
        assert interrupted == nightly
    with pytest.raises(WarehouseBusy), psycopg.connect(conninfo, autocommit=True) as holder:
        holder.execute("select pg_advisory_lock(%s)", [LOCK_KEY])
        with pg_turn(parse(uri), me("r3", "2026-11-29", "ingest"), 0, None):
            pass


@pytest.mark.slow  # a bench on two backends: `make test-slow`
def test_bench_recomputes_on_a_lake_too_and_prints_the_figures_side_by_side(tmp_path):
    args = ["bench", "--estimates", "7000", "--backends", "memory,ducklake-sqlite", "--workdir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    header, rows, *_ = result.output.splitlines()
    assert "in memory" in header and "DuckLake, SQLite catalog" in header
    label, memory_rows, lake_rows = rows.rsplit(maxsplit=2)
    assert label == "estimate rows" and memory_rows == lake_rows  # the same warehouse, recomputed on each
    assert "recompute s" in result.output and "vs first" in result.output
    assert "recompute / floor" in result.output and "later night / floor" in result.output
    assert "the layouts' models kept their tables" in result.output  # on the lake as in memory
    assert list(tmp_path.iterdir()) == []  # both temporary warehouses are gone
    bad = CliRunner().invoke(app, ["bench", "--backends", "file,oracle"])
    assert bad.exit_code == 2 and "unknown backend oracle" in bad.output


def test_writers_run_under_a_memory_limit_you_can_set(monkeypatch):
    from warehouse.store import db

    con = db.connect(":memory:")
    try:  # the default: DuckDB spills past 1 GB (953.6 MiB as DuckDB prints 1e9 bytes)
        assert con.execute("select current_setting('memory_limit')").fetchone()[0] == "953.6 MiB"
    finally:
        con.close()
    monkeypatch.setenv("GPUCALC_MEMORY_LIMIT", "4GB")
    con = db.connect(":memory:")
    try:
        assert con.execute("select current_setting('memory_limit')").fetchone()[0] == "3.7 GiB"
    finally:
        con.close()
    monkeypatch.setenv("GPUCALC_MEMORY_LIMIT", "lots")
    with pytest.raises(ValueError, match="GPUCALC_MEMORY_LIMIT='lots' is not a DuckDB memory size"):
        db.connect(":memory:")


def test_every_connection_takes_the_threads_you_set(tmp_path, monkeypatch):
    from warehouse.store import db
    from warehouse.store.reader import connect_reader

    path = str(tmp_path / "w.duckdb")
    monkeypatch.setenv("GPUCALC_THREADS", "3")
    writer = db.connect(path)
    try:
        assert writer.execute("select current_setting('threads')").fetchone()[0] == 3
    finally:
        writer.close()
    reader = connect_reader(path)
    try:
        assert reader.execute("select current_setting('threads')").fetchone()[0] == 3
    finally:
        reader.close()
    monkeypatch.setenv("GPUCALC_THREADS", "all")
    with pytest.raises(ValueError, match="GPUCALC_THREADS='all' is not a number of threads"):
        db.connect(path)


def test_writers_store_strings_without_fsst(tmp_path):
    """FSST's analysis was half of every checkpoint and saves nothing on the warehouse's short,
    repeating strings (warehouse/store/db.py): distinct URL-like strings that DuckDB would store FSST
    are stored another way by a writer."""
    from warehouse.store import db

    con = db.connect(str(tmp_path / "w.duckdb"), schema=False)
    try:
        con.execute("""create table t as select 'https://example.com/quotes/' || i || '/8x-h100-' || (i % 97) as s
                       from range(20000) r(i)""")
        con.execute("checkpoint")
        methods = {m for (m,) in con.execute(
            "select distinct compression from pragma_storage_info('t') where segment_type = 'VARCHAR'").fetchall()}
    finally:
        con.close()
    assert methods and "FSST" not in methods


def test_a_new_warehouse_file_has_small_blocks_and_an_older_file_keeps_its_own(tmp_path):
    """A warehouse is about ninety small tables, each at least one block: 64 KiB blocks, not
    DuckDB's 256 KiB (settings.NEW_FILE_BLOCK_SIZE); a file made before keeps the size it has."""
    def block_size(path):
        con = db.connect(str(path), schema=False)
        try:
            return con.execute("select block_size from pragma_database_size() where database_name = current_database()"
                               ).fetchone()[0]
        finally:
            con.close()

    assert block_size(tmp_path / "new.duckdb") == 65536
    duckdb.connect(str(tmp_path / "older.duckdb")).close()  # DuckDB's default, as an older gpucalc made it
    assert block_size(tmp_path / "older.duckdb") == 262144


def test_writers_store_small_row_groups_in_a_file_and_in_a_lake_unless_the_lake_chose_its_own(tmp_path):
    """The rebuild's tables are tens of thousands of rows: in row groups of 8,192 an insert
    compresses them on every core as it writes them, instead of the commit on one
    (settings.WRITER_ROW_GROUP_SIZE). 20,000 rows are three such groups."""
    file = db.connect(str(tmp_path / "w.duckdb"), schema=False)
    try:
        file.execute("create table t as select range as x from range(20000)")
        file.execute("checkpoint")
        assert file.execute("select count(distinct row_group_id) from pragma_storage_info('t')").fetchone() == (3,)
    finally:
        file.close()

    def lake_row_groups(name, chosen=None):
        where, files = parse(f"ducklake:sqlite:{tmp_path / name}.sqlite"), tmp_path / f"{name}-files"
        if chosen:  # the lake's owner sets a size of their own
            first = lake.connect(where, data_path=f"{files}/")
            first.execute(f"call {lake.LAKE}.set_option('parquet_row_group_size', {chosen})")
            first.close()
        con = lake.connect(where, data_path=f"{files}/")
        try:
            con.execute("create table t as select range as x from range(20000)")
            [path] = [str(p) for p in files.rglob("*.parquet")]
            return con.execute("select count(distinct row_group_id) from parquet_metadata(?)", [path]).fetchone()[0]
        finally:
            con.close()

    assert lake_row_groups("new") == 3
    assert lake_row_groups("chosen", chosen=16384) == 2
