"""Upgrades of a warehouse an older gpucalc wrote, run before every rebuild's models: each module
upgrades one kind of older warehouse and leaves a current one as it is."""

from __future__ import annotations

import duckdb

from warehouse.build.migrations import changed_kinds, serving_passes
from warehouse.store.db import objects


def upgrade(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]]) -> dict[str, str]:
    """Upgrade the warehouse to what `models` make; returns its objects (db.objects) as they are
    after, listed once for the rebuild (on a lake each listing is a catalog round trip)."""
    present = objects(con)
    serving_passes.drop_retired(con, present)
    changed_kinds.drop_changed_kinds(con, models, present)
    return present
