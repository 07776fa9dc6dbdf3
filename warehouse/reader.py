"""The read-only door: a connection that reads the warehouse and nothing else, on every backend.

What a reader may do: read this warehouse. No other file (COPY TO, ATTACH, read_csv,
read_text, glob, EXPORT), no extension installs or loads, and the settings locked so a
query cannot turn any of that back on. DuckDB enforces it (`enable_external_access=false`,
then `lock_configuration`), set after the warehouse is opened.

A DuckLake needs more. Its catalog is reached through the sqlite or postgres scanner, and
those extensions open their own files and connections outside DuckDB's file system, so
`enable_external_access` does not bind them: `ATTACH 'x.sqlite'`, `sqlite_scan(...)` or
`postgres_execute(...)` would still reach other files or write the catalog. So a lake
reader also takes only queries (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE), as DuckDB's
own parser classifies them, and no table function that those extensions bring (apart from
DuckLake's read-only history functions) nor one that runs SQL from a string. The lake
itself is attached read-only and pinned to one snapshot: the reader sees one night,
whatever a writer commits meanwhile, as a reader of the DuckDB file keeps its snapshot.
"""

from __future__ import annotations

import functools
import json
from datetime import date

import duckdb

from warehouse import lake, motherduck, settings
from warehouse.location import DUCKLAKE, MOTHERDUCK, BadWarehouse, parse

LOCKED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,  # last: after it nothing above can change
}
# Run SQL given as a string, out of the parser's sight.
RUNS_SQL = {"query", "query_table", "json_execute_serialized_sql"}
# DuckLake's functions that only read the lake's history and metadata.
LAKE_READ_FUNCTIONS = {
    "ducklake_snapshots", "ducklake_current_snapshot", "ducklake_last_committed_snapshot", "ducklake_table_info",
    "ducklake_table_changes", "ducklake_table_insertions", "ducklake_table_deletions", "ducklake_options",
    "ducklake_settings", "ducklake_list_files",
}


def connect_reader(location: str, as_of: date | None = None):
    """A read-only connection to the warehouse as it is now, or as the last write of `as_of` left it."""
    from warehouse.db import NoWarehouse, open_file, warehouse_exists

    where = parse(location)
    if not warehouse_exists(location):
        raise NoWarehouse(f"no warehouse at {where.uri}: run `gpucalc run` first")
    if as_of is not None and where.kind != DUCKLAKE:
        raise BadWarehouse(f"--as-of needs a DuckLake warehouse (ducklake:<catalog>); {where.describe()} keeps "
                           "only its latest night")
    if where.kind == DUCKLAKE:
        return _lake_reader(where, as_of)
    if where.kind == MOTHERDUCK:
        return GuardedConnection(_lock(motherduck.connect(where, read_only=True)))
    return open_file(where.target, True, settings.duckdb_config(**LOCKED))


def _lake_reader(where, as_of: date | None):
    con = lake.connect(where, read_only=True)
    try:
        lake.pin(con, where, lake.snapshot_of_day(con, as_of) if as_of else lake.current_snapshot(con))
    except BaseException:
        con.close()
        raise
    # The lake's Parquet files are the one place outside the catalog a reader may open.
    return GuardedConnection(_lock(con, allowed_directories=[lake.stored_data_path(con)]))


def _lock(con: duckdb.DuckDBPyConnection, allowed_directories: list[str] = ()) -> duckdb.DuckDBPyConnection:
    if allowed_directories:  # must come before external access is switched off
        con.execute("set allowed_directories = ?", [list(allowed_directories)])
    for name, value in LOCKED.items():
        con.execute(f"set {name} = {str(value).lower()}")
    return con


class GuardedConnection:
    """A DuckDB connection that runs only queries that stay inside the warehouse (see above).

    Everything else (fetching, interrupt, close, extract_statements) is the connection's own.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._con = con
        self._refused = _extension_table_functions(con) | RUNS_SQL

    def execute(self, query: str, parameters=None):
        self.check(query)
        self._con.execute(query, parameters)
        return self

    def sql(self, query: str, **kwargs):
        self.check(query)
        return self._con.sql(query, **kwargs)

    query = sql

    def cursor(self):
        return GuardedConnection(self._con.cursor())

    def __getattr__(self, name: str):
        return getattr(self._con, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._con.close()

    def check(self, query: str) -> None:
        """Refuse, as a DuckDB permission error, what could leave the warehouse."""
        statements = self._con.extract_statements(query)
        if any(s.type != duckdb.StatementType.SELECT for s in statements):
            kinds = ", ".join(sorted({s.type.name for s in statements if s.type != duckdb.StatementType.SELECT}))
            raise duckdb.PermissionException(f"{kinds} is not allowed: this connection only reads the warehouse")
        tree = json.loads(self._con.execute("select json_serialize_sql(?)", [query]).fetchone()[0])
        if tree.get("error"):
            raise duckdb.PermissionException(
                f"only queries read a DuckLake warehouse (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE): "
                f"{tree.get('error_message')}"
            )
        used = sorted(set(_table_functions(tree)) & self._refused)
        if used:
            raise duckdb.PermissionException(
                f"{', '.join(used)} is not allowed: it reaches outside the warehouse"
            )


def _table_functions(node) -> list[str]:
    """Every table function a parsed query calls, at any depth (subqueries, joins, CTEs)."""
    found = []
    if isinstance(node, dict):
        if node.get("type") == "TABLE_FUNCTION":
            found.append(str((node.get("function") or {}).get("function_name", "")).lower())
        for value in node.values():
            found.extend(_table_functions(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_table_functions(value))
    return found


def _extension_table_functions(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Table functions the loaded extensions added to DuckDB's own, less DuckLake's read-only ones."""
    loaded = {r[0] for r in con.execute(
        "select function_name from duckdb_functions() where function_type in ('table', 'table_macro')"
    ).fetchall()}
    return loaded - _builtin_table_functions() - LAKE_READ_FUNCTIONS


@functools.cache
def _builtin_table_functions() -> frozenset[str]:
    plain = duckdb.connect(":memory:", config=lake.NO_AUTOLOAD)
    try:
        return frozenset(r[0] for r in plain.execute(
            "select function_name from duckdb_functions() where function_type in ('table', 'table_macro')"
        ).fetchall())
    finally:
        plain.close()
