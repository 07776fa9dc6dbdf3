"""Open the warehouse and keep its schema current."""

from __future__ import annotations

from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import duckdb


def _sql_files(folder: str) -> list[tuple[str, str]]:
    root = resources.files("warehouse") / folder
    files = sorted((p for p in root.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)
    return [(p.name, p.read_text()) for p in files]


def schema_files() -> list[tuple[str, str]]:
    return _sql_files("schema")


def model_files() -> list[tuple[str, str]]:
    return _sql_files("models")


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Apply every schema file in order; each is idempotent, so this runs on every connect."""
    for _name, sql in schema_files():
        con.execute(sql)


def connect(location: str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection with the schema applied (writers) or as found (read-only readers)."""
    if not read_only and location != ":memory:":
        Path(location).parent.mkdir(parents=True, exist_ok=True)
    if read_only and not Path(location).exists():
        raise FileNotFoundError(f"no warehouse at {location}: run `gpucalc run` first")
    con = duckdb.connect(location, read_only=read_only)
    if not read_only:
        apply_schema(con)
    return con


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection):
    """One load = one transaction: either all of it lands or none of it does."""
    con.execute("begin transaction")
    try:
        yield con
    except BaseException:
        con.execute("rollback")
        raise
    else:
        con.execute("commit")
