"""A lake write killed mid-way leaves Parquet files no catalog row names; the next write deletes them
(once they are older than any write takes), and never a file a writer may still be writing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import duckdb

from warehouse.store import lake
from warehouse.store.location import parse
from warehouse.store.workspace import Workspace
from warehouse.store.write_session import writing

DAY = date(2026, 11, 29)
# A writer that inserts into the lake (its Parquet files land in the data path before the commit),
# says so, and waits to be killed.
KILLED_WRITER = """
import sys, time
from warehouse.store import lake
from warehouse.store.location import parse
con = lake.connect(parse(sys.argv[1]), data_path=sys.argv[2])
con.execute("begin transaction")
con.execute("insert into kept select range from range(50000)")
print("written", flush=True)
time.sleep(60)
"""


def parquet_files(folder: Path) -> set[Path]:
    return set(folder.rglob("*.parquet"))


def catalog_files(location: str) -> set[Path]:
    con = lake.connect(parse(location), read_only=True)
    try:
        listed = con.execute("select data_file from ducklake_list_files('lake', 'kept')").fetchall()
    finally:
        con.close()
    return {Path(file) for (file,) in listed}


def kill_a_write_midway(location: str, data_path: str) -> None:
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, location, data_path], stdout=subprocess.PIPE,
                              text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        assert writer.stdout.readline().strip() == "written"
    finally:
        writer.kill()  # SIGKILL: no rollback, no cleanup
        writer.wait()


def age(paths: set[Path], seconds: float) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


def test_the_next_write_deletes_what_a_killed_lake_write_left(tmp_path):
    location = f"ducklake:sqlite:{tmp_path / 'catalog.sqlite'}"
    workspace = Workspace.resolve(tmp_path, location)
    data_path = workspace.lake_data_path
    with writing(workspace, "r1", DAY, "ingest") as session:
        session.con.execute("create table kept as select range as i from range(1000)")
    kept = catalog_files(location)
    kill_a_write_midway(location, data_path)
    orphans = parquet_files(Path(data_path)) - kept
    assert orphans and catalog_files(location) == kept  # on disk, named by no catalog row
    age(orphans, lake.ORPHAN_GRACE.total_seconds() + 60)  # the write was killed a while ago
    in_flight = Path(data_path) / "main" / "kept" / "ducklake-in-flight.parquet"
    in_flight.write_bytes(next(iter(orphans)).read_bytes())  # as another writer's file, just written

    with writing(workspace, "r2", DAY, "ingest"):
        pass

    assert parquet_files(Path(data_path)) == kept | {in_flight}
    con = lake.connect(parse(location), read_only=True)
    try:
        assert con.execute("select count(*), sum(i) from kept").fetchone() == (1000, 499500)
    finally:
        con.close()


def test_upkeep_that_fails_after_the_commit_leaves_the_write_landed(tmp_path, monkeypatch, caplog):
    location = f"ducklake:sqlite:{tmp_path / 'catalog.sqlite'}"

    def disk_full(*_args, **_kwargs):
        raise duckdb.IOException("Could not write file: No space left on device")

    monkeypatch.setattr(lake, "delete_orphaned_files", disk_full)
    with writing(Workspace.resolve(tmp_path, location), "r1", DAY, "ingest") as session:
        session.con.execute("create table kept as select 7 as i")
    assert "lake upkeep left for the next write: Could not write file: No space left on device" in caplog.text
    con = lake.connect(parse(location), read_only=True)
    try:
        assert con.execute("select i from kept").fetchall() == [(7,)]
    finally:
        con.close()
