"""Upgrades a warehouse from before 2026-12-06, whose two serving passes shared their tables and views.

There both passes wrote `serving_factor` and `serving_scope` in turn and read them through the
views `serving_batch` and `serving_choice`; each pass now has tables of its own, read by the
table macros `serving_batch(pass)` and `serving_choice(pass)` (warehouse/models/029_*, 030_*,
031_*, 063_*). No model makes the four old objects any more, so a rebuild would leave them
behind, stale, and digest the two tables as inputs of the topology models
(warehouse/build/topology_inputs.py).
"""

from __future__ import annotations

import duckdb

# the views first: they read the tables
RETIRED = {"serving_choice": "view", "serving_batch": "view", "serving_factor": "table", "serving_scope": "table"}


def drop_retired(con: duckdb.DuckDBPyConnection, present: dict[str, str]) -> None:
    """Drop the old serving objects `present` (db.objects) lists, and strike them from it."""
    for name, kind in RETIRED.items():
        if present.get(name) == kind:
            con.execute(f"drop {kind} {name}")
            del present[name]
