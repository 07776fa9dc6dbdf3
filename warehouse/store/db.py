"""Open the warehouse and keep its schema current.

`location` is the warehouse setting (warehouse/store/location.py): a DuckDB file, `:memory:`, a
DuckLake (`ducklake:<catalog>`) or MotherDuck (`md:<database>`). Every kind hands back a
DuckDB connection whose default catalog is the warehouse, so the same SQL runs on each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import duckdb

from warehouse.store import lake, motherduck, settings
from warehouse.store.location import (
    DAMAGED,
    DUCKLAKE,
    FILE,
    MEMORY,
    MOTHERDUCK,
    BadWarehouse,
    held_open,
    parse,
    unreadable,
)


def _sql_files(folder: str) -> list[tuple[str, str]]:
    root = resources.files("warehouse") / folder
    files = sorted((p for p in root.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)
    return [(p.name, p.read_text()) for p in files]


def schema_files() -> list[tuple[str, str]]:
    """The schema's SQL files in order, the ownership macro that sources/ shares among them."""
    from sources.bundled import ownership

    return sorted([*_sql_files("schema"), (ownership.SCHEMA_NAME, ownership.macro_sql())])


def model_files() -> list[tuple[str, str]]:
    return _sql_files("models")


MODEL_DEFINES = re.compile(r"^create or replace (?:temp )?(table|view) (\w+)", re.M)


def defined_by(models: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(kind, name) of every table and view the model files make."""
    return [found for _file, sql in models for found in MODEL_DEFINES.findall(sql)]


def table_definition(models: list[tuple[str, str]], table: str) -> str:
    """The statement among `models` that makes `table` if it is missing (a snapshot file's)."""
    pattern = re.compile(rf"^create table if not exists {re.escape(table)} \(.*?^\);", re.M | re.S)
    for _file, sql in models:
        found = pattern.search(sql)
        if found:
            return found.group(0)
    raise KeyError(f"no model makes the table {table}")


def objects(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The warehouse's tables and views by name, each 'table' or 'view' (one catalog read: on a
    lake each costs a round trip to the catalog)."""
    return dict(con.execute(
        """select table_name, case when table_type = 'VIEW' then 'view' else 'table' end
           from information_schema.tables where table_catalog = current_database() and table_schema = 'main'"""
    ).fetchall())


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Apply every schema file in order; each is idempotent, so this runs on every connect."""
    for _name, sql in schema_files():
        con.execute(sql)


def connect(
    location: str, read_only: bool = False, *, data_path: str | None = None, schema: bool = True,
    shown_as: str | None = None,
) -> duckdb.DuckDBPyConnection:
    """A connection with the schema applied (writers, unless `schema=False`) or as found (readers).

    `data_path` is where a new DuckLake keeps its Parquet files (Workspace.lake_data_path);
    `shown_as` the file an error names, when `location` is a working copy of it.
    """
    where = parse(location)
    if read_only and not warehouse_exists(location):
        raise NoWarehouse(f"no warehouse at {where.uri}: run `gpucalc run` first")
    if where.kind == DUCKLAKE:
        con = lake.connect(where, data_path=data_path, read_only=read_only)
    elif where.kind == MOTHERDUCK:
        con = motherduck.connect(where, read_only=read_only)
    else:
        if where.kind == FILE and not read_only:
            Path(where.target).parent.mkdir(parents=True, exist_ok=True)
        con = open_file(where.target, read_only, settings.duckdb_config(), shown_as)
    if not read_only:
        _limit_memory(con)
        # FSST's string analysis is a large share of every checkpoint and saves nothing here: the
        # warehouse's strings are short and repeat, which dictionary compression holds smaller
        # (docs/scale.md)
        if where.kind != MOTHERDUCK:  # its storage is the service's
            con.execute("set disabled_compression_methods = 'fsst'")
    if schema and not read_only:
        apply_schema(con)
    return con


def _limit_memory(con: duckdb.DuckDBPyConnection) -> None:
    limit = settings.memory_limit()
    try:
        con.execute("set memory_limit = ?", [limit])
    except duckdb.Error as exc:
        con.close()
        raise BadWarehouse(f"GPUCALC_MEMORY_LIMIT={limit!r} is not a DuckDB memory size such as 1GB ({exc})") from exc


class NoWarehouse(FileNotFoundError):
    """Nothing has been written at this warehouse location yet."""


# DuckDB keeps a file's row group size (settings.WRITER_ROW_GROUP_SIZE) only for the session
# that attaches it, so every writer opens a file this way rather than by duckdb.connect(path).
WRITER_ALIAS = "warehouse"


def open_file(path: str, read_only: bool, config: dict, shown_as: str | None = None) -> duckdb.DuckDBPyConnection:
    """The warehouse file, opened by a reader or attached by a writer (settings.WRITER_ROW_GROUP_SIZE); a
    damaged file is one sentence with the way back.

    The file is left as it is: whatever DuckDB could still recover from it is the user's.
    """
    try:
        if read_only or path == ":memory:":
            return duckdb.connect(path, read_only=read_only, config=config)
        return _attach_writer(path, config)
    except duckdb.Error as exc:
        said = str(exc).splitlines()[0].removeprefix("IO Error: ").replace(path, shown_as or path)
        if read_only and "Could not set lock" in said:
            raise held_open(shown_as or path, said.split(": ", 1)[-1].split(". See also")[0]) from exc
        if not DAMAGED.search(said):
            raise
        raise unreadable(shown_as or path, said) from exc


def _attach_writer(path: str, config: dict) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:", config=config)
    try:
        options = f"row_group_size {settings.WRITER_ROW_GROUP_SIZE}"
        if not Path(path).exists():
            options += f", block_size {settings.NEW_FILE_BLOCK_SIZE}"
        con.execute(f"attach '{lake.sql_string(path)}' as {WRITER_ALIAS} ({options})")
        con.execute(f"use {WRITER_ALIAS}")
        # where DuckDB spills for a file it opens itself, not the working directory
        con.execute("set temp_directory = ?", [f"{path}.tmp"])
    except BaseException:
        con.close()
        raise
    return con


def warehouse_exists(location: str) -> bool:
    """Whether a reader would find a warehouse: a local file or catalog file exists.

    A PostgreSQL catalog or MotherDuck cannot be checked without connecting; the connection
    itself then says what is wrong.
    """
    where = parse(location)
    if where.kind == MEMORY:
        return True
    if where.kind == FILE:
        return Path(where.target).exists()
    if where.catalog_file is not None:
        return where.catalog_file.exists()
    return where.kind in (DUCKLAKE, MOTHERDUCK)


# A write session on a lake is one transaction from the schema to the run log: loads and
# rebuilds inside it must not open (or commit) transactions of their own.
_SESSIONS: set[int] = set()


@contextmanager
def session_transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """Everything inside lands as one commit (one DuckLake snapshot), or nothing does."""
    con.execute("begin transaction")
    _SESSIONS.add(id(con))
    try:
        yield con
    except BaseException:
        _SESSIONS.discard(id(con))
        con.execute("rollback")
        raise
    _SESSIONS.discard(id(con))
    con.execute("commit")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection):
    """One load = one transaction: either all of it lands or none of it does."""
    if id(con) in _SESSIONS:  # already inside a session's transaction: it decides for all
        yield con
        return
    con.execute("begin transaction")
    try:
        yield con
    except BaseException:
        con.execute("rollback")
        raise
    else:
        con.execute("commit")
