"""Views the later models read many times, held as tables on a small warehouse.

A view is bound and planned again at every read, and `serving_layout` is read by both serving
passes and by calibration, several times each: on a warehouse of the bundled catalog's size
planning it costs more than its rows, so the rebuild holds it as a table. On a large warehouse
the table costs more than it saves, since each pass reads only the columns and pairs it needs
from the view, so there it stays a view (docs/scale.md has the figures). Readers see either
kind with the same rows.
"""

from __future__ import annotations

import re

import duckdb

from warehouse.build.manifest import manifest
from warehouse.store.db import objects

VIEW_STATEMENT = re.compile(r"^create or replace view (\w+) as", re.M)


def statement(con: duckdb.DuckDBPyConnection, file: str, sql: str) -> str:
    """The model's SQL as this rebuild runs it: a held view's statement makes a table when the
    warehouse has at most the manifest's workload x platform pairs, after the object of the
    other kind a previous rebuild left under its name is dropped."""
    most_pairs = manifest().held_when_small.get(file)
    if most_pairs is None:
        return sql
    name = _view(file, sql)
    pairs = con.execute("select (select count(*) from workload_spec) * (select count(*) from platform_spec)"
                        ).fetchone()[0]
    held = pairs <= most_pairs
    _drop_other_kind(con, name, "table" if held else "view")
    return VIEW_STATEMENT.sub(f"create or replace table {name} as", sql, count=1) if held else sql


def names(models: list[tuple[str, str]]) -> set[str]:
    """The views among `models` a rebuild may hold as tables: either kind under their names is theirs."""
    held = manifest().held_when_small
    return {_view(file, sql) for file, sql in models if file in held}


def _view(file: str, sql: str) -> str:
    found = VIEW_STATEMENT.search(sql)
    if found is None:
        raise RuntimeError(f"{file} is held_when_small in warehouse/models/manifest.toml but makes no view")
    return found.group(1)


def _drop_other_kind(con: duckdb.DuckDBPyConnection, name: str, kind: str) -> None:
    found = objects(con).get(name)
    if found not in (None, kind):
        con.execute(f"drop {found} {name}")
