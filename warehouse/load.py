"""Loads: stage -> validate -> merge, one transaction per load.

A load replaces exactly the window its batch covers (a source's rows for a provider and day,
or for a benchmark file), so loading the same input twice leaves the warehouse unchanged.
Rows that break a rule go to `rejected_row` with the source, the row and the rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime

import duckdb
import polars as pl

from sources.base import Parsed, Reject
from sources.contracts import BENCHMARK_REQUIRED, PRICE_REQUIRED
from warehouse import validation
from warehouse.db import transaction


@dataclass(frozen=True)
class LoadResult:
    source: str
    table: str
    loaded: int
    rejected: int


@dataclass(frozen=True)
class RunContext:
    run_id: str
    run_date: date
    extracted_at: datetime

    @classmethod
    def new(cls, run_id: str, run_date: date) -> RunContext:
        return cls(run_id, run_date, datetime.now(UTC).replace(tzinfo=None))


def alias_map(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return con.execute("select distinct lower(trim(alias)) as gpu_name_key, gpu_id as gpu from gpu_alias").pl()


def resolve_gpu(frame: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """Add `gpu` (canonical id) and `gpu_name_key` (the normalised spelling it matched on)."""
    keyed = frame.with_columns(pl.col("gpu_name").str.strip_chars().str.to_lowercase().alias("gpu_name_key"))
    return keyed.join(aliases, on="gpu_name_key", how="left")


def load_prices(con: duckdb.DuckDBPyConnection, source: str, parsed: Parsed, run: RunContext) -> LoadResult:
    frame = resolve_gpu(parsed.rows, alias_map(con)).with_columns(
        (pl.col("usd_per_instance_hour") / pl.col("gpus_per_instance")).alias("usd_per_gpu_hour"),
        validation.days_in_future("observed_at", run.run_date),
    )
    rules = validation.price_rules(alias_map(con)["gpu_name_key"].to_list())
    violations = validation.validate("price_quote", frame, rules, PRICE_REQUIRED)
    good, rejects = _split(source, frame, violations, parsed.rejects)
    # the window is what the rows themselves say they are: (source, provider, day)
    windows = frame.select("source", "provider", "observed_at").unique().drop_nulls()
    with transaction(con):
        con.register("load_windows", windows.to_arrow())
        con.execute(
            """delete from price_quote q using load_windows w
               where q.source = w.source and q.provider = w.provider and q.observed_at = w.observed_at"""
        )
        _insert(con, "price_quote", good, run)
        _replace_rejects(con, source, "price_quote", rejects, run, _scope(windows["provider"]))
        con.unregister("load_windows")
    return LoadResult(source, "price_quote", good.height, len(rejects))


def load_benchmarks(con: duckdb.DuckDBPyConnection, source: str, parsed: Parsed, run: RunContext) -> LoadResult:
    frame = resolve_gpu(parsed.rows, alias_map(con)).with_columns(
        validation.days_in_future("measured_at", run.run_date)
    )
    rules = validation.benchmark_rules(alias_map(con)["gpu_name_key"].to_list())
    violations = validation.validate("benchmark_result", frame, rules, BENCHMARK_REQUIRED)
    good, rejects = _split(source, frame, violations, parsed.rejects)
    refs = frame.select("source", "source_ref").unique().drop_nulls()
    with transaction(con):
        con.register("load_refs", refs.to_arrow())
        con.execute(
            """delete from benchmark_result b using load_refs r
               where b.source = r.source and b.source_ref = r.source_ref"""
        )
        _insert(con, "benchmark_result", good, run)
        _replace_rejects(con, source, "benchmark_result", rejects, run, _scope(refs["source_ref"]))
        con.unregister("load_refs")
    return LoadResult(source, "benchmark_result", good.height, len(rejects))


def record_source_failure(
    con: duckdb.DuckDBPyConnection, source: str, table: str, message: str, run: RunContext
) -> None:
    """A payload or fetch that could not be used at all: one rejected row says why."""
    reject = Reject(source=source, source_row=0, rule="source_unusable", detail=message)
    with transaction(con):
        _replace_rejects(con, source, table, [reject], run, "source_unusable")


def _split(
    source: str, frame: pl.DataFrame, violations: list[validation.Violation], parse_rejects: list[Reject]
) -> tuple[pl.DataFrame, list[Reject]]:
    rows = frame.to_dicts()
    bad_indices = sorted({v.row_index for v in violations})
    rejects = list(parse_rejects)
    for v in violations:
        row = rows[v.row_index]
        position = row.get("source_row") or v.row_index + 1
        rejects.append(Reject(source, position, v.rule, f"{source} row {position}: {v.detail}", _jsonable(row)))
    good = frame.filter(~pl.int_range(pl.len()).is_in(bad_indices)) if bad_indices else frame
    return good, rejects


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, run: RunContext) -> None:
    if frame.height == 0:
        return
    columns = {row[0] for row in con.execute(f"describe {table}").fetchall()}
    stamped = frame.with_columns(pl.lit(run.run_id).alias("run_id"), pl.lit(run.extracted_at).alias("extracted_at"))
    staged = stamped.select([c for c in stamped.columns if c in columns])
    con.register("staged_rows", staged.to_arrow())
    con.execute(f"insert into {table} by name select * from staged_rows")
    con.unregister("staged_rows")


def _scope(values: pl.Series) -> str:
    """Names the part of a source a load covers, so a later partial load replaces only it."""
    return ",".join(sorted(str(v) for v in values.unique().drop_nulls().to_list())) or "*"


def _replace_rejects(
    con: duckdb.DuckDBPyConnection,
    source: str,
    table: str,
    rejects: list[Reject],
    run: RunContext,
    scope: str,
) -> None:
    con.execute(
        "delete from rejected_row where source = ? and target_table = ? and run_date = ? and scope = ?",
        [source, table, run.run_date, scope],
    )
    if not rejects:
        return
    records = [
        (
            run.run_id,
            run.run_date,
            r.source,
            table,
            scope,
            r.source_row or None,
            r.rule,
            r.detail,
            json.dumps(_jsonable(r.row), sort_keys=True, default=str),
            run.extracted_at,
        )
        for r in rejects
    ]
    con.executemany(
        """insert into rejected_row (run_id, run_date, source, target_table, scope, source_row,
           rule, detail, row_json, rejected_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        records,
    )


def _jsonable(row: dict) -> dict:
    drop = {"gpu_name_key", "days_in_future"}
    return {k: (v.isoformat() if isinstance(v, date | datetime) else v) for k, v in row.items() if k not in drop}
