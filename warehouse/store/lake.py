"""DuckLake: attach the lake without the network, pin a snapshot, find the snapshot of a day.

The extensions come from their Python wheels (`duckdb-extension-ducklake` and the catalog
scanners, pinned to the DuckDB release in pyproject.toml) and are LOADed by path, so no
machine ever needs DuckDB's extension server: `INSTALL` is never run, autoloading is off.

Every connection to a lake is an in-memory DuckDB with the lake attached as `lake` and made
the default catalog (`use lake`), so the schema, the loads, the models and people's queries
run the same unqualified SQL on a DuckDB file and on a lake.
"""

from __future__ import annotations

import importlib.util
import logging
import sqlite3
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import duckdb

from sources.kit.environment import number
from warehouse.store import settings
from warehouse.store.location import DAMAGED, BadWarehouse, Location, redact, unreadable

LAKE = "lake"  # the name the lake is attached under; `use lake` makes it the default
EXTENSIONS = {  # extension -> the wheel that ships it for this DuckDB release
    "ducklake": "duckdb_extension_ducklake",
    "sqlite_scanner": "duckdb_extension_sqlite_scanner",
    "postgres_scanner": "duckdb_extension_postgres_scanner",
    "httpfs": "duckdb_extension_httpfs",
    "motherduck": "duckdb_extension_motherduck",
}
OBJECT_STORES = ("s3://", "gs://", "gcs://", "r2://", "az://", "azure://", "abfss://", "http://", "https://")
NO_AUTOLOAD = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
KEEP_DAYS = 35  # time travel reaches back this far (a month of nights and some)
# A Parquet file no catalog row names is deleted once it is this old: far longer than any write
# takes, so a file another writer is still writing is never one of them.
ORPHAN_GRACE = timedelta(hours=1)
log = logging.getLogger(__name__)


def extension_path(name: str) -> Path:
    """Where the wheel put the extension for the running DuckDB; a missing wheel is one sentence."""
    spec = importlib.util.find_spec(EXTENSIONS[name])
    version = duckdb.__version__
    if spec is None or not spec.submodule_search_locations:
        raise BadWarehouse(f"the {name} extension is not installed: pip install {_wheel(name)}=={version}")
    path = Path(spec.submodule_search_locations[0]) / "extensions" / f"v{version}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise BadWarehouse(f"{path} is missing: the {name} wheel does not match duckdb {version}; "
                           f"pip install {_wheel(name)}=={version}")
    return path


def load(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    for name in names:
        con.execute(f"load '{sql_string(str(extension_path(name)))}'")


# DuckDB hashes an extension's whole file (tens of MB) to check its signature on every LOAD, most of
# what opening a lake costs, yet a loaded library stays mapped and a later LOAD of the same path runs
# that same code: so a file DuckDB checked in this process, unchanged since, is not checked again.
_CHECKED: dict[Path, tuple[int, int, int, int]] = {}  # extension file -> its identity when checked


def _with_extensions(names: list[str]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with `names` loaded, each extension file checked by DuckDB once per process
    (_CHECKED); the connection then refuses unsigned extensions, as one opened without them does."""
    paths = [extension_path(name) for name in names]
    identities = [_identity(path) for path in paths]
    checked = all(_CHECKED.get(path) == identity for path, identity in zip(paths, identities, strict=True))
    unsigned = {"allow_unsigned_extensions": True} if checked else {}
    con = duckdb.connect(":memory:", config=settings.duckdb_config(**NO_AUTOLOAD, **unsigned))
    try:
        load(con, *names)
        if checked:  # once off it cannot be turned on again: every later LOAD is checked
            con.execute("set allow_unsigned_extensions = false")
    except BaseException:
        con.close()
        raise
    _CHECKED.update(zip(paths, identities, strict=True))
    return con


def _identity(path: Path) -> tuple[int, int, int, int]:
    found = path.stat()
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


def needed_extensions(where: Location, data_path: str | None = None) -> list[str]:
    scanner = {"sqlite": "sqlite_scanner", "postgres": "postgres_scanner"}.get(where.catalog or "")
    names = ["ducklake", *([scanner] if scanner else [])]
    if data_path and data_path.startswith(OBJECT_STORES):
        names.append("httpfs")
    return names


def connect(
    where: Location, *, data_path: str | None = None, read_only: bool = False, snapshot: int | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the lake attached as `lake` and in use.

    `data_path` is where a new lake puts its Parquet files (an existing lake remembers its
    own; a different one is refused). `snapshot` pins a reader to one snapshot.
    """
    if where.catalog == "sqlite":
        try:
            _sqlite_wal(where.catalog_file, create=not read_only)  # a reader never creates the catalog
        except sqlite3.DatabaseError as exc:
            raise _explained(where, exc) from without_secrets(exc)
    names = needed_extensions(where, data_path)
    try:
        con = _with_extensions(names)
    except duckdb.Error as exc:
        raise _explained(where, exc) from without_secrets(exc)
    try:
        con.execute(f"attach '{sql_string(where.uri)}' as {LAKE} {_options(data_path, read_only, snapshot)}")
        con.execute(f"use {LAKE}")
        chosen = _catalog_options(con)  # one catalog round trip for both questions
        if not read_only and "parquet_row_group_size" not in chosen:
            # the writers' size (settings.py says why) on a lake that has none of its own; a
            # size someone set on the lake stays. DuckLake keeps it in the catalog.
            con.execute(f"call {LAKE}.set_option('parquet_row_group_size', {settings.WRITER_ROW_GROUP_SIZE})")
        if "httpfs" not in names and chosen["data_path"].startswith(OBJECT_STORES):
            load(con, "httpfs")  # an existing lake on object storage (a reader does not name the path)
    except duckdb.Error as exc:
        con.close()
        raise _explained(where, exc) from without_secrets(exc)
    return con


def pin(con: duckdb.DuckDBPyConnection, where: Location, snapshot: int) -> None:
    """Re-attach the lake read-only at one snapshot, in the same connection (no second extension load)."""
    con.execute("use memory")
    con.execute(f"detach {LAKE}")
    try:
        con.execute(f"attach '{sql_string(where.uri)}' as {LAKE} {_options(None, True, snapshot)}")
    except duckdb.Error as exc:
        raise _explained(where, exc) from without_secrets(exc)
    con.execute(f"use {LAKE}")


def current_snapshot(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute(f"select id from ducklake_current_snapshot('{LAKE}')").fetchone()[0]


def stored_data_path(con: duckdb.DuckDBPyConnection) -> str:
    """Where the attached lake keeps its Parquet files, as its catalog records it."""
    return _catalog_options(con)["data_path"]


def _catalog_options(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The lake-wide options the attached lake's catalog records, by name."""
    return dict(con.execute(
        f"select option_name, value from ducklake_options('{LAKE}') where scope = 'GLOBAL'"
    ).fetchall())


def snapshot_of_day(con: duckdb.DuckDBPyConnection, day: date) -> int:
    """The last snapshot committed on `day` (UTC) or before: the warehouse as that day left it."""
    end = datetime.combine(day + timedelta(days=1), time(), tzinfo=UTC)
    row = con.execute(
        f"select max(snapshot_id) from ducklake_snapshots('{LAKE}') where snapshot_time < ?", [end]
    ).fetchone()
    if row[0] is None:
        first = con.execute(f"select min(snapshot_time) from ducklake_snapshots('{LAKE}')").fetchone()[0]
        since = f"; its history starts {first:%Y-%m-%d %H:%M} UTC" if first else ""
        raise BadWarehouse(f"the lake has no snapshot on or before {day.isoformat()}{since}")
    return row[0]


def keep_days() -> int:
    """Days of history (time travel) a lake keeps: GPUCALC_LAKE_KEEP_DAYS, else KEEP_DAYS."""
    return number("GPUCALC_LAKE_KEEP_DAYS", KEEP_DAYS, int, 1)


def expire_history(con: duckdb.DuckDBPyConnection, keep: timedelta | None = None) -> int:
    """The lake's upkeep after a write commits: forget snapshots (and delete their files) older than
    keep_days(), and delete the Parquet files no catalog row names; returns how many snapshots went.

    Every nightly recompute replaces the derived tables, and every statement on a lake reads
    the catalog's history-bearing metadata, so an unbounded history would slow every night
    down. Run after a write commits, holding the write turn; readers pinned to a snapshot that
    old are long gone. The write has landed by then, so upkeep that fails (a full disk) is
    logged and left to the next write rather than failing it.
    """
    try:
        expired = _expire_snapshots(con, keep)
        delete_orphaned_files(con)
    except (duckdb.Error, OSError) as exc:
        log.warning("lake upkeep left for the next write: %s", redact(str(exc).splitlines()[0]))
        return 0
    return expired


def _expire_snapshots(con: duckdb.DuckDBPyConnection, keep: timedelta | None) -> int:
    cutoff = datetime.now(UTC) - (keep if keep is not None else timedelta(days=keep_days()))
    oldest = con.execute(f"select min(snapshot_time) from ducklake_snapshots('{LAKE}')").fetchone()[0]
    if oldest is None or oldest >= cutoff:
        return 0
    expired = con.execute(f"call ducklake_expire_snapshots('{LAKE}', older_than => ?)", [cutoff]).fetchall()
    con.execute(f"call ducklake_cleanup_old_files('{LAKE}', older_than => ?)", [cutoff])
    return len(expired)


def delete_orphaned_files(con: duckdb.DuckDBPyConnection, grace: timedelta = ORPHAN_GRACE) -> list[str]:
    """Delete the Parquet files under the lake's data path that no catalog row names and that are
    older than `grace`: what a killed or failed write left. Returns the files deleted.

    The caller holds the write turn, so no gpucalc writer has files in flight; `grace` spares
    those of a writer that does not take turns (DuckDB run by hand on the lake).
    """
    # a literal, not a parameter: DuckDB runs a prepared call of this function many times slower
    older_than = f"now() - to_seconds({int(grace.total_seconds())})"
    deleted = con.execute(
        f"select * from ducklake_delete_orphaned_files('{LAKE}', older_than => {older_than})").fetchall()
    if deleted:
        log.info("deleted %d Parquet files no catalog row named (left by a write that did not finish)",
                 len(deleted))
    return [row[0] for row in deleted]


def _options(data_path: str | None, read_only: bool, snapshot: int | None) -> str:
    options = []
    if not read_only:
        if data_path:
            options.append(f"data_path '{sql_string(data_path)}'")
        # No inlining of small inserts into the catalog: it makes a catalog table per table
        # version, which the nightly's `create or replace` of ~40 derived tables multiplies,
        # and every statement then pays for listing them (docs/scale.md).
        options.append("data_inlining_row_limit 0")
    if read_only:
        options.append("read_only")
    if snapshot is not None:
        options.append(f"snapshot_version {int(snapshot)}")
    return f"({', '.join(options)})" if options else ""


def _sqlite_wal(path: Path | None, create: bool) -> None:
    """Put a SQLite catalog in WAL mode, so a reader mid-query never makes a writer's commit fail.

    In SQLite's default journal mode a reading connection blocks the writer's commit
    ("database is locked"); in WAL mode readers and one writer proceed together. The mode
    is stored in the file, so it is set once, by the first writer.
    """
    if path is None or not create:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as catalog:
        if catalog.execute("pragma journal_mode").fetchone()[0].lower() != "wal":
            catalog.execute("pragma journal_mode=wal")


def _explained(where: Location, exc: duckdb.Error | sqlite3.DatabaseError) -> Exception:
    text = str(exc).splitlines()[0]
    if where.catalog_file is not None and DAMAGED.search(text):
        return unreadable(f"{where.shown} (its catalog file)", text.removeprefix("IO Error: "))
    if "does not match existing data path" in text:
        return BadWarehouse(f"{where.describe()} keeps its files elsewhere ({text}); "
                            "set GPUCALC_LAKE_DATA_PATH to the lake's data path")
    if where.catalog == "postgres" and ("connect" in text.lower() or "connection" in text.lower()):
        return BadWarehouse(f"could not reach the PostgreSQL catalog of {where.shown}: {text}")
    if without_secrets(exc) is None:  # DuckDB's errors repeat the connection string, password and all
        return BadWarehouse(f"{where.shown}: {text}")
    return exc


def without_secrets(exc: BaseException) -> BaseException | None:
    """`exc` as the cause to chain to a clearer error, or None where its message holds a password
    or token: a traceback or a log line would print it."""
    return exc if redact(str(exc)) == str(exc) else None


def _wheel(name: str) -> str:
    return EXTENSIONS[name].replace("_", "-")


def sql_string(text: str) -> str:
    """`text` as the inside of a SQL string literal (ATTACH, LOAD and their options take no parameters)."""
    return text.replace("'", "''")
