"""The only way to change the warehouse: one writer at a time, and readers never in the way.

Writers take turns (warehouse/store/turns.py: a `flock` in the data directory; for a PostgreSQL
catalog an advisory lock in PostgreSQL, warehouse/store/pg_turn.py). A writer that could not get
its turn leaves its run_log row in `<data>/run_journal/`, which the next writer moves into
run_log; a holder that was killed is recorded as failed by the next writer.

How a write reaches readers depends on the warehouse (warehouse/store/location.py):

- A local DuckDB file (the warehouse itself, or the DuckDB catalog of a DuckLake) allows one
  read-write process, and a reader holding it makes a writer fail with "Could not set lock
  on file". So a write never opens the live file: it works on a copy (`<file>.next`),
  checkpoints it and renames it over the live file in one atomic step. Readers that opened
  the old file keep reading their snapshot; the next reader sees the new night. A write
  that fails or is killed leaves the live file untouched; the next writer discards its copy.
- A DuckLake with a SQLite or PostgreSQL catalog, and MotherDuck, take concurrent readers
  themselves: the write session is one transaction, so it lands as one snapshot or not at
  all, and a reader sees the night before or the night after, never half of one.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb

from sources.kit.raw_store import write_atomically
from warehouse.store import db, lake
from warehouse.store.location import DUCKLAKE, Location, redact
from warehouse.store.pg_turn import pg_turn
from warehouse.store.turns import LOCK_NAME, Holder, WarehouseBusy, file_turn, me, wait_seconds
from warehouse.store.workspace import Workspace

__all__ = ["LOCK_NAME", "Holder", "Turn", "WarehouseBusy", "Writer", "journal_run", "turn_taken", "wait_seconds",
           "writing"]
UNREADABLE_DIR = "unreadable"  # under run_journal/: entries that are not a run_log row, kept for the record
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Writer:
    """A writable connection and what the session learnt while opening it."""

    con: duckdb.DuckDBPyConnection
    interrupted: Holder | None  # the previous holder, if it was killed before finishing


@dataclass(frozen=True)
class Turn:
    """The write turn, held: what to write and where, and the holder before, if it was killed."""

    workspace: Workspace
    interrupted: Holder | None

    @contextmanager
    def session(self) -> Iterator[Writer]:
        """A connection whose changes land atomically on success; on an exception nothing this
        session wrote reaches the live warehouse."""
        where = self.workspace.where
        opened = _swapped if where.local_file else _in_place
        with opened(where, self.workspace) as con:
            imported = _import_journal(con, self.workspace.journal_dir)
            yield Writer(con, self.interrupted)
        for path in imported:  # only once the rows they carried have landed
            path.unlink(missing_ok=True)


@contextmanager
def turn_taken(
    workspace: Workspace,
    run_id: str,
    run_date: date,
    mode: str,
    *,
    wait_s: float | None = None,
    on_wait: Callable[[Holder], None] | None = None,
) -> Iterator[Turn]:
    """Wait for the write turn and hold it: what is read from raw/ while it is held, no other
    gpucalc writer changes before this one's session writes."""
    where = workspace.where
    workspace.data_dir.mkdir(parents=True, exist_ok=True)
    mine = me(run_id, run_date.isoformat(), mode)
    wait = wait_s if wait_s is not None else wait_seconds()
    turn = pg_turn(where, mine, wait, on_wait) if where.catalog == "postgres" else file_turn(
        _turn_folder(where, workspace.data_dir), mine, wait, on_wait)
    with turn as interrupted:
        yield Turn(workspace, interrupted)


@contextmanager
def writing(
    workspace: Workspace,
    run_id: str,
    run_date: date,
    mode: str,
    *,
    wait_s: float | None = None,
    on_wait: Callable[[Holder], None] | None = None,
) -> Iterator[Writer]:
    """Hold the write turn and yield a connection whose changes land atomically on success."""
    with turn_taken(workspace, run_id, run_date, mode, wait_s=wait_s, on_wait=on_wait) as turn:
        with turn.session() as writer:
            yield writer


def _turn_folder(where: Location, data_dir: Path) -> Path:
    """Where the write turn's lock lives: beside the warehouse's own file (or its lake's catalog
    file), so every writer of that file takes turns whatever data directory it was given (two
    shells in two folders with one GPUCALC_WAREHOUSE); for MotherDuck, the data directory.
    With the default layout both are the data directory."""
    own_file = where.local_file or where.catalog_file
    folder = own_file.parent if own_file is not None else data_dir
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def journal_run(workspace: Workspace, row: dict) -> Path:
    """Leave a run_log row for the next writer (a run that never got to write)."""
    folder = workspace.journal_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{row['run_id']}.json"
    write_atomically(path, json.dumps(row, default=str).encode())
    return path


@contextmanager
def _in_place(where: Location, workspace: Workspace) -> Iterator[duckdb.DuckDBPyConnection]:
    """A shared catalog (SQLite, PostgreSQL) or MotherDuck: the whole session is one transaction."""
    con = db.connect(where.uri, data_path=workspace.lake_data_path, schema=False)
    try:
        with db.session_transaction(con):
            db.apply_schema(con)
            yield con
        if where.kind == DUCKLAKE:
            lake.expire_history(con)
    finally:
        con.close()


@contextmanager
def _swapped(where: Location, workspace: Workspace) -> Iterator[duckdb.DuckDBPyConnection]:
    """A local DuckDB file (warehouse or lake catalog): write a copy, publish it by rename."""
    live = where.local_file
    working = _fresh_copy(live)
    try:
        if where.kind == DUCKLAKE:
            copy = Location(DUCKLAKE, str(working), "duckdb")
            con = db.connect(copy.uri, data_path=workspace.lake_data_path, schema=False)
        else:
            con = db.connect(str(working), schema=False, shown_as=str(live))
    except BaseException:
        _discard(working)
        raise
    try:
        if where.kind == DUCKLAKE:  # one snapshot per write, as on the shared catalogs
            with db.session_transaction(con):
                db.apply_schema(con)
                yield con
            lake.expire_history(con)
        else:  # the copy is private until published: its loads keep their own transactions
            db.apply_schema(con)
            yield con
        _close_checkpointed(con, where)
    except BaseException:
        con.close()
        _discard(working)
        raise
    _publish(working, live)


def _close_checkpointed(con: duckdb.DuckDBPyConnection, where: Location) -> None:
    if where.kind == DUCKLAKE:  # detaching the lake checkpoints its catalog file
        con.execute("use memory")
        con.execute("detach lake")
    else:
        con.execute("checkpoint")
    con.close()


def _fresh_copy(live: Path) -> Path:
    """The live file (and a WAL an older gpucalc may have left) copied to a working name."""
    working = live.with_name(live.name + ".next")
    _discard(working)  # a copy left by a killed writer
    live.parent.mkdir(parents=True, exist_ok=True)
    if live.exists():
        try:
            shutil.copyfile(live, working)
            wal = live.with_name(live.name + ".wal")
            if wal.exists():
                shutil.copyfile(wal, working.with_name(working.name + ".wal"))
        except BaseException:  # a full disk, say: no half copy left to fill it further
            _discard(working)
            raise
    return working


def _publish(working: Path, live: Path) -> None:
    wal = working.with_name(working.name + ".wal")
    if wal.exists() and wal.stat().st_size:
        raise RuntimeError(f"{working} still has a write-ahead log after checkpoint; not published")
    _fsync(working)
    os.replace(working, live)
    wal.unlink(missing_ok=True)
    live.with_name(live.name + ".wal").unlink(missing_ok=True)  # stale: the new file holds everything
    _fsync(live.parent)


def _discard(working: Path) -> None:
    working.unlink(missing_ok=True)
    working.with_name(working.name + ".wal").unlink(missing_ok=True)


def _import_journal(con: duckdb.DuckDBPyConnection, folder: Path) -> list[Path]:
    """Move the journal's run_log rows into the session; returns the entries to delete once it lands.

    An entry that is not a run_log row (edited, or written by something else) is moved to
    run_journal/unreadable/ with a warning: kept for the record, it blocks no writer.
    """
    if not folder.is_dir():
        return []
    imported = []
    for path in sorted(folder.glob("*.json")):
        row = _journal_row(path)
        if row is None:
            _set_aside_entry(path)
            continue
        con.execute("delete from run_log where run_id = ?", [row["run_id"]])
        con.execute(
            """insert into run_log (run_id, run_date, mode, started_at, finished_at, status, message)
               values (?, ?, ?, ?, ?, ?, ?)""",
            [row["run_id"], row["run_date"], row["mode"], row["started_at"], row["finished_at"], row["status"],
             row["message"]],
        )
        imported.append(path)
    return imported


def _journal_row(path: Path) -> dict | None:
    """The run_log row a journal entry holds, its dates and times parsed; None when it holds something else."""
    try:
        row = json.loads(path.read_text())
        return {
            "run_id": _text(row["run_id"]),
            "run_date": date.fromisoformat(row["run_date"]),
            "mode": _text(row["mode"]),
            "started_at": _utc(row["started_at"]),
            "finished_at": None if row.get("finished_at") is None else _utc(row["finished_at"]),
            "status": _text(row["status"]),
            "message": None if row.get("message") is None else redact(_text(row["message"])),
        }
    except (OSError, ValueError, TypeError, KeyError, AttributeError):  # not JSON, not a mapping, a field wrong
        return None


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _utc(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _set_aside_entry(path: Path) -> None:
    aside = path.parent / UNREADABLE_DIR / path.name
    aside.parent.mkdir(exist_ok=True)
    os.replace(path, aside)
    log.warning("skipped %s: it is not a run_log row (set aside as %s, for the record)", path, aside)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
