"""Scale the bundled warehouse to about N estimate rows, for `gpucalc bench`.

Copies of workloads, platforms and quote sets keep everything that decides feasibility, so
a first rebuild of the unscaled warehouse predicts the scaled row count exactly (see the
docstring of warehouse/bench/__init__.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import duckdb
import polars as pl

from warehouse.store.sql_text import sql_text

SYNTHETIC = "~"  # separator of synthetic ids: "<real id>~<copy>"
QUOTE_KEY = ("source", "provider", "region", "zone", "instance_type", "pricing")
BENCH_DATE = date(2026, 11, 29)


@dataclass(frozen=True)
class Plan:
    """How the base warehouse is multiplied, and the estimate rows that will give."""

    workload_copies: int
    platform_copies: int
    quote_copies: int  # copies of the snapshot with at least one quote present (1 = originals)
    quotes: int  # market quotes in the scaled warehouse
    base_rows: int  # estimate rows of the unscaled warehouse
    predicted_rows: int


def load_base(con: duckdb.DuckDBPyConnection) -> None:
    """The bundled catalog, benchmark results and price snapshot, as the nightly run has them."""
    from sources import bundled
    from sources.bundled.catalog import load_catalog
    from warehouse.loading.identity import resolve_rows

    for table, frame in load_catalog().items():
        _insert(con, table, frame)
    benchmarks = resolve_rows(con, bundled.load_benchmark_results().rows).filter(pl.col("gpu").is_not_null())
    _insert(con, "benchmark_result", benchmarks.with_columns(pl.lit("bench").alias("run_id")))
    prices = resolve_rows(con, bundled.load_price_snapshot().rows).filter(pl.col("gpu").is_not_null())
    prices = prices.with_columns(
        (pl.col("usd_per_instance_hour") / pl.col("gpus_per_instance")).alias("usd_per_gpu_hour"),
        pl.lit("bench").alias("run_id"),
    )
    _insert(con, "price_quote", prices)


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    columns = {row[0] for row in con.execute(f"describe {table}").fetchall()}
    staged = frame.select([c for c in frame.columns if c in columns])
    con.register("bench_rows", staged.to_arrow())
    con.execute(f"insert into {table} by name select * from bench_rows")
    con.unregister("bench_rows")


def plan_scale(
    con: duckdb.DuckDBPyConnection,
    estimates: int,
    workload_copies: int | None = None,
    platform_copies: int | None = None,
) -> Plan:
    """Rebuild the unscaled warehouse once and decide the copies that give ~`estimates` rows.

    Leaves `bench_quote_plan` (quote key, copy, rows it adds) for `_scale`.
    """
    from warehouse.build.rebuild import rebuild_estimates

    rebuild_estimates(con, "bench-base", BENCH_DATE)
    base = con.execute("select count(*) from estimate").fetchone()[0]
    if base == 0:
        raise RuntimeError("the unscaled warehouse produces no estimate rows: nothing to multiply")
    key = ", ".join(QUOTE_KEY)
    quote_order = ", ".join(f"q.{c}" for c in QUOTE_KEY)
    same_quote = _same_quote("q", "e")
    con.execute(sql_text("warehouse.bench", "quote_rows.sql", key=key, quote_order=quote_order, same_quote=same_quote))
    market = con.execute("select sum(rows) from bench_quote_rows").fetchone()[0]
    fixed = base - market
    growth = estimates / base
    w = workload_copies or max(1, round(growth**0.25))
    p = platform_copies or max(1, round(growth**0.25))
    per_copy = w * p
    wanted_market = estimates / per_copy - fixed
    full = max(0, math.floor(wanted_market / market)) if market else 0
    con.execute(sql_text("warehouse.bench", "quote_plan.sql"), [full, wanted_market])
    present_rows, present_quotes, copies = con.execute(
        "select coalesce(sum(rows), 0), count(*), coalesce(max(copy) + 1, 0) from bench_quote_plan"
    ).fetchone()
    return Plan(
        workload_copies=w,
        platform_copies=p,
        quote_copies=copies,
        quotes=present_quotes,
        base_rows=base,
        predicted_rows=int(per_copy * (fixed + present_rows)),
    )


def scale(con: duckdb.DuckDBPyConnection, plan: Plan) -> None:
    """Multiply workloads, platforms and quotes as planned (rows outside the plan are dropped)."""
    same_quote = _same_quote("q", "b")
    con.execute(
        f"""delete from price_quote q where not exists (
                select 1 from bench_quote_plan b where b.copy = 0 and {same_quote})"""
    )
    con.execute(sql_text("warehouse.bench", "quote_copies.sql", same_quote=same_quote), [SYNTHETIC])
    if plan.workload_copies > 1:
        con.execute(sql_text("warehouse.bench", "workload_copies.sql"), [SYNTHETIC, plan.workload_copies])
    if plan.platform_copies > 1:
        con.execute(sql_text("warehouse.bench", "platform_copies.sql"), [SYNTHETIC, plan.platform_copies])
    con.execute("drop table bench_quote_plan")
    con.execute("drop table bench_quote_rows")


def _same_quote(left: str, right: str) -> str:
    """Two quote keys are equal (zone may be null on both sides)."""
    return " and ".join(f"{left}.{c} is not distinct from {right}.{c}" for c in QUOTE_KEY)
