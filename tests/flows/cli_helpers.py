"""What the command-line tests share: run `gpucalc` in this process, read a data directory's warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb
from typer.testing import CliRunner

from flows.cli import app


def gpucalc(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, list(args), env=env)


def query(data: Path, sql: str, params=None) -> list[tuple]:
    """Rows of `sql` over `<data>/warehouse.duckdb`, opened read-only."""
    con = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()
