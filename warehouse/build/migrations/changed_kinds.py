"""Upgrades a warehouse an older gpucalc wrote with a table under the name of a model that now
makes a view, or a view where it now makes a table."""

from __future__ import annotations

import duckdb

from warehouse.build import held
from warehouse.build.migrations import night_option_split
from warehouse.store.db import defined_by


def drop_changed_kinds(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]], present: dict[str, str]) -> None:
    """A model that became a view (or a table) replaces the object an older run left under its name.

    `present`: the warehouse's objects (db.objects), kept as they are after the drops.
    """
    either_kind = held.names(models)  # the rebuild picks their kind itself
    for kind, obj in defined_by(models):
        if obj not in either_kind and present.get(obj) not in (None, kind):
            if obj == night_option_split.TABLE:  # a night's options kept as one wide table: keep them
                present.update(night_option_split.move_rows(con, models))
            con.execute(f"drop {present.pop(obj)} {obj}")
