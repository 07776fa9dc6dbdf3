"""The read-only door: a connection that reads the warehouse and nothing else, on every backend.

What a reader may do: read this warehouse. No other file (COPY TO, ATTACH, read_csv,
read_text, glob, EXPORT), no extension installs or loads, and the settings locked so a
query cannot turn any of that back on. DuckDB enforces it (`enable_external_access=false`,
then `lock_configuration`), set after the warehouse is opened.

A DuckLake needs more. Its catalog is reached through the sqlite or postgres scanner, and
those extensions open their own files and connections outside DuckDB's file system, so
`enable_external_access` does not bind them: `ATTACH 'x.sqlite'`, `sqlite_scan(...)` or
`postgres_execute(...)` would still reach other files or write the catalog; and the lake's
own folder must stay open to read its Parquet files, so `lake.merge_adjacent_files()` could
write there. So a lake (or MotherDuck) reader also takes only queries (SELECT, WITH, FROM,
DESCRIBE, SHOW, SUMMARIZE, PIVOT), as DuckDB's own parser classifies them, and every function
a query calls, qualified or not, must be on a list: DuckDB's own read-only table functions and
its scalar functions, DuckLake's history functions, and the warehouse's own macros. Anything
else (an extension's function, one of the lake's maintenance macros, SQL run from a string)
is refused before it runs. The lake itself is attached read-only and pinned to one snapshot:
the reader sees one night, whatever a writer commits meanwhile, as a reader of the DuckDB
file keeps its snapshot.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import date

import duckdb

from warehouse.store import lake, motherduck, settings
from warehouse.store.db import NoWarehouse, open_file, warehouse_exists
from warehouse.store.location import DUCKLAKE, MOTHERDUCK, BadWarehouse, parse

LOCKED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,  # last: after it nothing above can change
}
# DuckDB's own table functions that read only what the connection already holds: none reads
# a file (read_csv, glob), runs SQL from a string (query, query_table), writes (checkpoint),
# changes the session (enable_logging) or shows a secret (duckdb_secrets; duckdb_databases and
# duckdb_settings, which show a catalog's connection string, password and all).
READ_ONLY_TABLE_FUNCTIONS = frozenset({
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree", "histogram",
    "histogram_values", "summary", "test_all_types", "test_vector_types", "icu_calendar_names", "pg_timezone_names",
    "duckdb_approx_database_count", "duckdb_columns", "duckdb_connection_count", "duckdb_constraints",
    "duckdb_coordinate_systems", "duckdb_dependencies", "duckdb_functions", "duckdb_indexes",
    "duckdb_keywords", "duckdb_log_contexts", "duckdb_logs", "duckdb_logs_parsed", "duckdb_memory",
    "duckdb_optimizers", "duckdb_prepared_statements", "duckdb_profiling_settings", "duckdb_schemas",
    "duckdb_secret_types", "duckdb_sequences", "duckdb_table_sample", "duckdb_tables",
    "duckdb_temporary_files", "duckdb_types", "duckdb_variables", "duckdb_views", "pragma_collations",
    "pragma_database_size", "pragma_metadata_info", "pragma_platform", "pragma_show", "pragma_storage_info",
    "pragma_table_info", "pragma_user_agent", "pragma_version",
})
# DuckLake's functions that only read the lake's history and metadata, and the lake's own
# shorthands for them (`lake.snapshots()` is `ducklake_snapshots('lake')`).
LAKE_READ_FUNCTIONS = frozenset({
    "ducklake_snapshots", "ducklake_current_snapshot", "ducklake_last_committed_snapshot", "ducklake_table_info",
    "ducklake_table_changes", "ducklake_table_insertions", "ducklake_table_deletions", "ducklake_options",
    "ducklake_settings", "ducklake_list_files",
    "snapshots", "current_snapshot", "last_committed_snapshot", "table_info", "options", "settings",
})
# Scalar functions that read a setting, which may be a catalog's connection string or a token.
SHOWS_SECRETS = frozenset({"current_setting", "getvariable"})
NOT_ALLOWED = ("is not allowed: a reader calls only DuckDB's read-only functions, DuckLake's history and the "
               "warehouse's own macros")


def connect_reader(location: str, as_of: date | None = None):
    """A read-only connection to the warehouse as it is now, or as the last write of `as_of` left it
    (DuckLake only): what `gpucalc sql` and the reports read through."""
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
        listed = _functions(con)
        own_tables, own_scalars = _warehouse_functions(listed)
        self._tables = READ_ONLY_TABLE_FUNCTIONS | LAKE_READ_FUNCTIONS | own_tables
        self._scalars = _duckdb_scalar_functions() | own_scalars
        self._known = {name for name, _kind, _own in listed}
        self._known_tables = {name for name, kind, _own in listed if kind in ("table", "table_macro")}

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
        pivot = _one_pivot(query, statements)
        kinds = {s.type for s in statements} - {duckdb.StatementType.SELECT}
        if pivot:  # the parser's own enum types of the values to pivot on: temporary, in memory
            kinds.discard(duckdb.StatementType.CREATE)
        if kinds:
            names = ", ".join(sorted(kind.name for kind in kinds))
            raise duckdb.PermissionException(f"{names} is not allowed: this connection only reads the warehouse")
        refused = self._refused_written(query) if pivot else self._refused_parsed(query)
        if refused:
            raise duckdb.PermissionException(f"{', '.join(sorted(refused))} {NOT_ALLOWED}")

    def _refused_parsed(self, query: str) -> set[str]:
        """The calls of a query, as DuckDB's parser reads it, that are not on the lists."""
        tree = json.loads(self._con.execute("select json_serialize_sql(?)", [query]).fetchone()[0])
        if tree.get("error"):
            raise duckdb.PermissionException(
                f"only queries read a DuckLake warehouse (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE): "
                f"{tree.get('error_message')}"
            )
        tables, scalars = _parsed_calls(tree)
        return (tables - self._tables) | (scalars - self._scalars)

    def _refused_written(self, query: str) -> set[str]:
        """The calls written in a PIVOT that are not on the lists.

        DuckDB cannot show the tree of a PIVOT that makes its own enum type, so its text is
        read instead: every `name(` is a call, a table function's if DuckDB knows it as one.
        A name that is no function DuckDB lists could still be one of the lake's own macros
        (they are made when first called), so it is refused too; a keyword that names no
        function is syntax (`coalesce(`, `exists(`).
        """
        refused = set()
        for name, is_keyword in _written_calls(query):
            if is_keyword and name not in self._known:
                continue
            if not (name in self._tables or (name in self._scalars and name not in self._known_tables)):
                refused.add(name)
        return refused


def statements_written(query: str) -> int:
    """How many statements `query` holds as written, by the semicolons between them.

    DuckDB's parser gives a PIVOT without an IN list two statements (an enum type of the
    values, then the query): its tokens, which skip strings and comments, say what was written.
    """
    count, between = 0, True
    for start, kind in duckdb.tokenize(query):
        if kind == duckdb.token_type.operator and query.startswith(";", start):
            between = True
        elif between:
            count, between = count + 1, False
    return count


def _one_pivot(query: str, statements: list) -> bool:
    """Whether the parser made a PIVOT's enum types ahead of the one query written."""
    *made, last = statements or [None]
    return (bool(made) and statements_written(query) == 1 and last.type == duckdb.StatementType.SELECT
            and all(s.type == duckdb.StatementType.CREATE for s in made))


def _parsed_calls(tree) -> tuple[set[str], set[str]]:
    """The table functions and the other functions a parsed query calls, at any depth."""
    tables, scalars = set(), set()

    def visit(node) -> None:
        if isinstance(node, list):
            for value in node:
                visit(value)
            return
        if not isinstance(node, dict):
            return
        if node.get("type") == "TABLE_FUNCTION":
            function = node.get("function") or {}
            tables.add(_function_name(function))
            visit(function.get("children"))  # its arguments, then the rest of the table reference
            for key, value in node.items():
                if key != "function":
                    visit(value)
            return
        if node.get("class") == "FUNCTION" and not node.get("is_operator"):
            scalars.add(_function_name(node))
        for value in node.values():
            visit(value)

    visit(tree)
    return tables, scalars


def _function_name(function: dict) -> str:
    return str(function.get("function_name", "")).lower()


def _written_calls(query: str) -> list[tuple[str, bool]]:
    """Every `name(` or `a.b.name(` in the text, as (name, whether it is a bare keyword).

    A name typed after AS or `::` is a type or an alias's columns, not a call.
    """
    tokens = [(start, kind, _token_text(query, start, kind)) for start, kind in duckdb.tokenize(query)]
    words = (duckdb.token_type.identifier, duckdb.token_type.keyword)
    calls = []
    for i, (_, kind, text) in enumerate(tokens[:-1]):
        if kind not in words or tokens[i + 1][2] != "(":
            continue
        first = i
        while first >= 2 and tokens[first - 1][2] == "." and tokens[first - 2][1] in words:
            first -= 2
        if first and tokens[first - 1][2].lower() in ("as", "::"):
            continue
        calls.append((_unquoted(text), kind == duckdb.token_type.keyword and first == i))
    return calls


def _token_text(query: str, start: int, kind) -> str:
    if kind == duckdb.token_type.operator:
        return "::" if query.startswith("::", start) else query[start]
    word = re.match(r'"(?:[^"]|"")*"|::|[\w$]+', query[start:])
    return word.group(0) if word else query[start]


def _unquoted(name: str) -> str:
    return name[1:-1].replace('""', '"').lower() if name.startswith('"') else name.lower()


def _functions(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, bool]]:
    """Every function this connection lists: (name, type, whether the warehouse itself defines it)."""
    return con.execute(
        "select distinct function_name, function_type, database_name = current_database() and not internal "
        "from duckdb_functions()"
    ).fetchall()


def _warehouse_functions(listed: list[tuple[str, str, bool]]) -> tuple[set[str], set[str]]:
    """The warehouse's own macros (its models define them): table macros, and the others."""
    own = [(name, kind) for name, kind, is_own in listed if is_own]
    tables = {name for name, kind in own if kind == "table_macro"}
    return tables, {name for name, _ in own} - tables


@functools.cache
def _duckdb_scalar_functions() -> frozenset[str]:
    """DuckDB's own scalar, aggregate and macro functions (none of them writes or reaches a
    file), and the two its binder knows itself: unnest (or unlist) in a select list."""
    plain = duckdb.connect(":memory:", config=lake.NO_AUTOLOAD)
    try:
        return frozenset(r[0] for r in plain.execute(
            "select function_name from duckdb_functions() where function_type in ('scalar', 'aggregate', 'macro')"
        ).fetchall()) - SHOWS_SECRETS | {"unnest", "unlist"}
    finally:
        plain.close()
