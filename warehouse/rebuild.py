"""Rebuild the derived layer: run every model SQL file in order inside one transaction."""

from __future__ import annotations

from datetime import date

import duckdb

from warehouse.db import model_files, transaction


def rebuild_estimates(con: duckdb.DuckDBPyConnection, run_id: str, run_date: date) -> dict[str, int]:
    """Recompute calibration, topologies and estimates for `run_date`; return row counts."""
    with transaction(con):
        con.execute(
            "create or replace table run_context as select ?::varchar as run_id, ?::date as run_date",
            [run_id, run_date],
        )
        # Working tables that the models now define as views: drop the tables an older run left.
        for (name,) in con.execute(
            """select table_name from duckdb_tables()
               where database_name = current_database() and schema_name = 'main'
                 and table_name in ('estimate', 'serving_batch', 'topology_training', 'topology_candidate')"""
        ).fetchall():
            con.execute(f"drop table {name}")
        for name, sql in model_files():
            try:
                con.execute(sql)
            except duckdb.Error as exc:
                raise RuntimeError(f"model {name} failed: {exc}") from exc
    counts = {}
    for table in ("topology_estimate", "estimate", "calibration_point", "backtest", "pareto"):
        counts[table] = con.execute(f"select count(*) from {table}").fetchone()[0]
    return counts
