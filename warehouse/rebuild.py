"""Rebuild the derived layer: run every model SQL file in order inside one transaction."""

from __future__ import annotations

from datetime import date

import duckdb

from warehouse import topology_inputs
from warehouse.db import defined_by, model_files, objects, transaction


def rebuild_estimates(con: duckdb.DuckDBPyConnection, run_id: str, run_date: date) -> dict[str, int]:
    """Recompute calibration, topologies and estimates for `run_date`; return row counts.

    The topology models keep last rebuild's tables when none of their inputs changed
    (warehouse/topology_inputs.py); everything from the prices on is computed every time.
    """
    models = model_files()
    topology, priced = topology_inputs.split(models)
    with transaction(con):
        con.execute(
            "create or replace table run_context as select ?::varchar as run_id, ?::date as run_date",
            [run_id, run_date],
        )
        _drop_changed_kinds(con, models)
        wanted, keep = topology_inputs.check(con, models)
        if not keep:
            _run(con, topology)
            topology_inputs.remember(con, wanted)
        _run(con, priced)
    counts = {table: con.execute(f"select count(*) from {table}").fetchone()[0]
              for table in ("topology_estimate", "calibration_point", "backtest", "pareto")}
    # `estimate` is a view over every topology x quote pair (10 million at scale: seconds to
    # count again); estimate_best counted them while choosing its winners (091_estimate_best.sql)
    counts["estimate"] = int(con.execute("select coalesce(sum(pairs), 0) from estimate_best_pair").fetchone()[0])
    return counts


def _run(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]]) -> None:
    for name, sql in models:
        try:
            con.execute(sql)
        except duckdb.Error as exc:
            raise RuntimeError(f"model {name} failed: {exc}") from exc


def _drop_changed_kinds(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]]) -> None:
    """A model that became a view (or a table) replaces the object an older run left under its name."""
    existing = objects(con)
    for kind, obj in defined_by(models):
        if existing.get(obj) not in (None, kind):
            con.execute(f"drop {existing[obj]} {obj}")
