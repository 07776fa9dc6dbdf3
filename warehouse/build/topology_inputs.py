"""Whether the topology half of the models can keep last rebuild's tables.

The models before `065_topology_estimate` compute every layout, its time and memory, and the
calibration, from the catalog, the benchmarks and the assumptions. They read no price, no run
and no log (tests/warehouse/test_topology_inputs.py checks the SQL), so a write that brought
only prices (most ingests, and every night whose catalog and benchmarks did not move) would
recompute the same tables: about two thirds of a rebuild's time, and most of what the write's
checkpoint then stores again. Their inputs are digested (every row of every table they may
read, less the load's lineage stamps and the assumptions they do not name, and the SQL of the
schema and of those models); an equal digest keeps their tables.
"""

from __future__ import annotations

import hashlib
import re

import duckdb

from warehouse.build.manifest import manifest
from warehouse.store.db import defined_by, objects, schema_files

# Base tables the topology models never read: what a price load, a run or its log writes, how
# providers link the instances they rent (read only where quotes are priced), and the history
# the later models keep.
NOT_TOPOLOGY_INPUTS = frozenset({
    "raw_payload", "price_quote", "api_price", "provider_capacity", "rejected_row", "run_log", "source_status",
    "baseline_load", "estimate_daily",
})
NOT_TOPOLOGY_PREFIXES = ("night_",)
# Lineage stamped on every load: a reload of the same rows changes it, and no topology model reads it.
NOT_TOPOLOGY_COLUMNS = frozenset({"run_id", "extracted_at"})
DIGEST_TABLE = "topology_inputs"
# The models read an assumption only as assume('name') (tests/warehouse/test_topology_inputs.py
# checks it): a cost assumption (pue, ownership years, power price...) that no topology model
# names moves no layout, so a what-if or decision that sets one keeps the layouts' tables.
ASSUMED = re.compile(r"assume\('(\w+)'\)")


def split(models: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The topology models (the manifest's layouts) and the rest, in order."""
    declared = manifest()
    return declared.pick(models, declared.layouts), declared.pick(models, declared.priced + declared.snapshots)


def input_tables(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]]) -> list[str]:
    """Every table the warehouse holds that no model makes (the loads' tables), less those the
    topology models never read: whatever a load adds later is an input until it is listed here."""
    return _inputs(objects(con), models)


def check(
    con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]], present: dict[str, str] | None = None
) -> tuple[str, bool]:
    """The digest of the topology models' inputs now, and whether their tables can be kept: the
    last rebuild computed them from exactly these inputs, and they are all there.

    `present`: the warehouse's objects (db.objects), where the caller has just listed them.
    """
    present = objects(con) if present is None else present
    wanted = _digest(con, models, present)
    topology_models, _ = split(models)
    if DIGEST_TABLE not in present or not {name for _kind, name in defined_by(topology_models)} <= present.keys():
        return wanted, False
    return wanted, con.execute(f"select digest from {DIGEST_TABLE}").fetchall() == [(wanted,)]


def remember(con: duckdb.DuckDBPyConnection, wanted: str) -> None:
    con.execute(f"create or replace table {DIGEST_TABLE} as select ?::varchar as digest", [wanted])


def _inputs(present: dict[str, str], models: list[tuple[str, str]]) -> list[str]:
    made = {name for _kind, name in defined_by(models)} | {DIGEST_TABLE, "run_context"}
    return sorted(name for name, kind in present.items()
                  if kind == "table" and name not in made and name not in NOT_TOPOLOGY_INPUTS
                  and not name.startswith(NOT_TOPOLOGY_PREFIXES))


def _digest(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]], present: dict[str, str]) -> str:
    """Every row of the topology models' inputs and the SQL that computes them, as one digest."""
    topology_models, _ = split(models)
    hashed = hashlib.sha256()
    for _name, sql in [*schema_files(), *topology_models]:
        hashed.update(sql.encode())
    inputs = _inputs(present, models)
    columns: dict[str, list[str]] = {table: [] for table in inputs}
    for table, column in con.execute(
        "select table_name, column_name from information_schema.columns where table_catalog = current_database() "
        "and table_schema = 'main' and table_name in ? order by table_name, ordinal_position", [inputs]).fetchall():
        if column not in NOT_TOPOLOGY_COLUMNS:
            columns[table].append(column)
    assumed = sorted({name for _name, sql in topology_models for name in ASSUMED.findall(sql)})
    for table in inputs:
        row = ", ".join(f'"{c}"' for c in columns[table])
        where, params = ("where name in ?", [assumed]) if table == "assumption" else ("", [])
        rows, total = con.execute(f"select count(*), coalesce(sum(hash({row})::hugeint), 0) from {table} {where}",
                                  params).fetchone()
        hashed.update(f"{table}({','.join(columns[table])}):{rows}:{total};".encode())
    return hashed.hexdigest()
