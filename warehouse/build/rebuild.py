"""Rebuild the derived layer: run every model SQL file in order inside one transaction."""

from __future__ import annotations

import re
from datetime import date

import duckdb

from sources import bundled
from warehouse.build import held, migrations, topology_cache, topology_inputs
from warehouse.build.manifest import manifest
from warehouse.store.db import defined_by, model_files, transaction


def rebuild_estimates(con: duckdb.DuckDBPyConnection, run_id: str, run_date: date) -> dict[str, int]:
    """Recompute calibration, topologies and estimates for `run_date`; return row counts.

    The topology models keep last rebuild's tables when none of their inputs changed
    (warehouse/build/topology_inputs.py), or copy those another rebuild computed from the same inputs
    (warehouse/build/topology_cache.py); everything from the prices on is computed every time, but
    the report snapshots only on a night that keeps one.
    """
    models = model_files()
    manifest().check(models)
    topology, priced = topology_inputs.split(models)
    with transaction(con):
        con.execute(
            "create or replace table run_context as select ?::varchar as run_id, ?::date as run_date, "
            "?::date as snapshot_date",  # the bundled price snapshot's date (latest_quote judges its rows on it)
            [run_id, run_date, bundled.SNAPSHOT_DATE],
        )
        # the warehouse's objects, listed once for the upgrade and the two questions below (on a
        # lake each listing is a catalog round trip); the models in between make no snapshot table
        present = migrations.upgrade(con, models)
        wanted, keep = topology_inputs.check(con, models, present)
        if not keep:
            if not topology_cache.restore(con, wanted, topology):
                _run(con, topology)
                topology_cache.keep(con, wanted, topology)
            topology_inputs.remember(con, wanted)
        estimates, snapshots = _split_snapshots(priced)
        _run(con, estimates)
        if _snapshots_to_take(con, snapshots, present):
            _run(con, snapshots)
    counts = {table: con.execute(f"select count(*) from {table}").fetchone()[0]
              for table in ("topology_estimate", "calibration_point", "backtest", "pareto")}
    # `estimate` is a view over every topology x quote pair, slow to count again at scale
    # (docs/scale.md); estimate_best counted them while choosing its winners (091_estimate_best.sql)
    counts["estimate"] = int(con.execute("select coalesce(sum(pairs), 0) from estimate_best_pair").fetchone()[0])
    return counts


# The report snapshots (094_night_guard.sql, warehouse/models/manifest.toml): each of the
# manifest's snapshot tables makes its table if missing, then deletes and inserts tonight's rows
# only when night_snapshot_wanted(); its snapshot views read them whole (night_option).
SNAPSHOT_TABLE = re.compile(r"^create table if not exists (\w+)", re.M)


def _split_snapshots(models: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    declared = manifest()
    return declared.pick(models, declared.priced), declared.pick(models, declared.snapshots)


def snapshot_tables(models: list[tuple[str, str]]) -> set[str]:
    """The tables the snapshot files among `models` make."""
    return {name for _file, sql in manifest().pick(models, manifest().snapshot_tables)
            for name in SNAPSHOT_TABLE.findall(sql)}


def snapshot_views(models: list[tuple[str, str]]) -> set[str]:
    """The views over them the snapshot files among `models` make."""
    return {name for kind, name in defined_by(manifest().pick(models, manifest().snapshot_views)) if kind == "view"}


def _snapshots_to_take(con: duckdb.DuckDBPyConnection, snapshots: list[tuple[str, str]],
                       present: dict[str, str]) -> bool:
    """Whether the snapshot files have anything to do: a night that keeps one, or a table or view
    to make.

    An ingest, replay, backfill or what-if rebuild would only run their three statements each to
    change nothing: about a fifth of a small warehouse's rebuild, and a catalog round trip each on
    a lake.
    """
    if con.execute("select night_snapshot_wanted()").fetchone()[0]:
        return True
    return not (snapshot_tables(snapshots) | snapshot_views(snapshots)) <= present.keys()


def _run(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]]) -> None:
    for name, sql in models:
        try:
            con.execute(held.statement(con, name, sql))
        except duckdb.Error as exc:
            raise RuntimeError(f"model {name} failed: {exc}") from exc
