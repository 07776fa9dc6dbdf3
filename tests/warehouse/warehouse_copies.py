"""A warehouse a test module built once, kept in a file and handed out as private in-memory copies.

A rebuild is mostly DuckDB planning its ~70 models, however small the toy, so a test that
changes its warehouse starts from a copy of the one its module built instead of loading and
building its own: the copy holds every table, view and macro the original did.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.store import db


def keep(con: duckdb.DuckDBPyConnection, path: Path) -> Path:
    """Write `con`'s whole warehouse to the new DuckDB file `path`, and return it."""
    (name,) = con.execute("select current_database()").fetchone()
    con.execute(f"attach '{path}' as kept")
    try:
        con.execute(f"copy from database {name} to kept")
    finally:
        con.execute("detach kept")
    return path


def copy_of(path: Path) -> duckdb.DuckDBPyConnection:
    """A private in-memory warehouse holding what `keep` wrote to `path`."""
    con = db.connect(":memory:", schema=False)  # the copy brings the schema with it
    con.execute(f"attach '{path}' as kept (read_only)")
    try:
        con.execute("copy from database kept to memory")
    finally:
        con.execute("detach kept")
    return con
