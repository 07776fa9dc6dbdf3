"""How fast the models recompute: a synthetic warehouse of about N estimate rows, rebuilt for real.

`run_bench(N)` builds a throwaway warehouse (a DuckDB file in a temporary directory, or
in memory) from the bundled catalog, benchmark results and price snapshot, multiplies it
until the models will produce about N rows in `estimate`, and times `rebuild_estimates`
on it: the same SQL models the nightly run executes, in the same single transaction.

Scaling. The real catalog gives `base` estimate rows. Three things are multiplied:

- workloads: `W` copies of every workload (`<workload_id>~<k>`; the job size varies),
- platforms: `P` copies of every platform (`<platform_id>~<k>`: another OEM's system
  with the same GPU; capex and power vary, so ownership prices differ),
- quotes: copies of the price snapshot under other providers (`<provider>~<k>`, prices
  varied a few percent), so every GPU has many providers.

Copies keep the physics that decides feasibility (memory, peaks, links, latency limits),
so each copy yields exactly the topologies of its original, and the row count is known
before the recompute: a first, small rebuild of the unscaled warehouse counts the estimate
rows each quote produces (`c_q`) and the rows that do not depend on quotes (ownership,
`fixed`); the scaled warehouse then produces `W * P * (fixed + sum of c_q over the quote
copies present)`. Quote copies are added (or, below the base, originals dropped) one by
one until that prediction is as close to N as it gets.

The synthetic rows are inserted directly, without the great-expectations suites: the
bundled data validates clean, and the bench measures the recompute, not the loads.
"""

from __future__ import annotations

import math
import os
import resource
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import polars as pl

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


def run_bench(
    estimates: int,
    *,
    threads: int | None = None,
    memory_limit: str | None = None,
    database: str = "file",
    settings: dict[str, object] | None = None,
    workload_copies: int | None = None,
    platform_copies: int | None = None,
    profile: bool = False,
    workdir: str | Path | None = None,
) -> dict:
    """Build a warehouse of about `estimates` estimate rows, recompute it, return the figures.

    `database` is "file" (a DuckDB file, like the nightly warehouse) or "memory".
    `threads` / `memory_limit` (DuckDB syntax, e.g. "3GB") and any other DuckDB `settings`
    are applied before anything runs; None keeps DuckDB's defaults, as the nightly run does.
    `profile=True` then runs the model files one by one on the same warehouse and adds their
    timings.
    """
    if estimates < 1:
        raise ValueError("estimates must be a positive number of rows")
    if database not in ("file", "memory"):
        raise ValueError("database must be 'file' or 'memory'")
    with tempfile.TemporaryDirectory(prefix="gpucalc-bench-", dir=workdir) as tmp:
        location = str(Path(tmp) / "bench.duckdb") if database == "file" else ":memory:"
        con = _connect(location, tmp, threads, memory_limit, settings)
        try:
            setup_started = time.perf_counter()
            _load_base(con)
            plan = plan_scale(con, estimates, workload_copies, platform_copies)
            _scale(con, plan)
            con.execute("checkpoint")
            setup_s = time.perf_counter() - setup_started
            figures = _measure_rebuild(con)
            figures.update(_describe(con, plan, estimates, database, setup_s))
            if database == "file":
                figures["database_file_mb"] = _mb(os.path.getsize(location))
            if profile:
                figures["profile"] = profile_models(con)
        finally:
            con.close()
    return figures


def _connect(location, tmp, threads, memory_limit, settings) -> duckdb.DuckDBPyConnection:
    from warehouse import db

    con = db.connect(location)
    con.execute("set enable_progress_bar = false")
    con.execute("set temp_directory = ?", [str(Path(tmp) / "spill")])
    if threads:
        con.execute(f"set threads = {int(threads)}")
    if memory_limit:
        con.execute("set memory_limit = ?", [memory_limit])
    for name, value in (settings or {}).items():
        con.execute(f"set {name} = ?", [value])
    return con


def _load_base(con: duckdb.DuckDBPyConnection) -> None:
    """The bundled catalog, benchmark results and price snapshot, as the nightly run has them."""
    from sources import bundled
    from sources.catalog import load_catalog
    from warehouse.load import alias_map, resolve_gpu

    for table, frame in load_catalog().items():
        _insert(con, table, frame)
    aliases = alias_map(con)
    benchmarks = resolve_gpu(bundled.load_benchmark_results().rows, aliases).filter(pl.col("gpu").is_not_null())
    _insert(con, "benchmark_result", benchmarks.with_columns(pl.lit("bench").alias("run_id")))
    prices = resolve_gpu(bundled.load_price_snapshot().rows, aliases).filter(pl.col("gpu").is_not_null())
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
    from warehouse.rebuild import rebuild_estimates

    rebuild_estimates(con, "bench-base", BENCH_DATE)
    base = con.execute("select count(*) from estimate").fetchone()[0]
    if base == 0:
        raise RuntimeError("the unscaled warehouse produces no estimate rows: nothing to multiply")
    key = ", ".join(QUOTE_KEY)
    quote_order = ", ".join(f"q.{c}" for c in QUOTE_KEY)
    same_quote = _same_quote("q", "e")
    # Estimate rows per market quote (0 for a quote whose GPU no platform carries).
    con.execute(
        f"""create or replace temp table bench_quote_rows as
            select q.*, coalesce(e.rows, 0) as rows, row_number() over (order by {quote_order}) as quote_no
            from (select distinct {key} from price_quote) q
            left join (
                select price_source as source, provider, region, zone, instance_type, pricing, count(*) as rows
                from estimate group by all
            ) e on {same_quote}"""
    )
    market = con.execute("select sum(rows) from bench_quote_rows").fetchone()[0]
    fixed = base - market
    growth = estimates / base
    w = workload_copies or max(1, round(growth**0.25))
    p = platform_copies or max(1, round(growth**0.25))
    per_copy = w * p
    wanted_market = estimates / per_copy - fixed
    # Copy k of quote i is added in order (k, i); take the prefix closest to the wanted rows.
    full = max(0, math.floor(wanted_market / market)) if market else 0
    con.execute(
        """create or replace temp table bench_quote_plan as
           with candidates as (
               select r.*, k.copy, sum(r.rows) over (order by k.copy, r.quote_no rows unbounded preceding) as cum
               from bench_quote_rows r cross join range(0, ? + 1) k(copy)
           )
           select * from candidates
           where cum - rows / 2.0 < ?""",
        [full, wanted_market],
    )
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


def _scale(con: duckdb.DuckDBPyConnection, plan: Plan) -> None:
    """Multiply workloads, platforms and quotes as planned (rows outside the plan are dropped)."""
    same_quote = _same_quote("q", "b")
    con.execute(
        f"""delete from price_quote q where not exists (
                select 1 from bench_quote_plan b where b.copy = 0 and {same_quote})"""
    )
    # Other providers for the same instances, a few percent dearer or cheaper.
    con.execute(
        f"""insert into price_quote by name
            select q.* replace (
                       q.provider || '{SYNTHETIC}' || b.copy as provider,
                       round(q.usd_per_instance_hour * (0.95 + 0.01 * ((b.copy * 7) % 11)), 4)
                           as usd_per_instance_hour,
                       round(q.usd_per_instance_hour * (0.95 + 0.01 * ((b.copy * 7) % 11)), 4)
                           / q.gpus_per_instance as usd_per_gpu_hour)
            from price_quote q
            join bench_quote_plan b
              on b.copy > 0 and {same_quote}"""
    )
    if plan.workload_copies > 1:
        con.execute(
            f"""insert into workload by name
                select w.* replace (
                           w.workload_id || '{SYNTHETIC}' || k.copy as workload_id,
                           w.name || ' (synthetic copy ' || k.copy || ')' as name,
                           w.total_tokens * (1 + 0.1 * k.copy) as total_tokens)
                from workload w cross join range(1, ?) k(copy)""",
            [plan.workload_copies],
        )
    if plan.platform_copies > 1:
        con.execute(
            f"""insert into platform by name
                select p.* replace (
                           p.platform_id || '{SYNTHETIC}' || k.copy as platform_id,
                           p.name || ' (synthetic variant ' || k.copy || ')' as name,
                           p.capex_usd_per_node * (1 + 0.02 * (k.copy % 5)) as capex_usd_per_node,
                           p.node_power_kw * (1 + 0.01 * (k.copy % 3)) as node_power_kw)
                from platform p cross join range(1, ?) k(copy)""",
            [plan.platform_copies],
        )
    con.execute("drop table bench_quote_plan")
    con.execute("drop table bench_quote_rows")


def _same_quote(left: str, right: str) -> str:
    """Two quote keys are equal (zone may be null on both sides)."""
    return " and ".join(f"{left}.{c} is not distinct from {right}.{c}" for c in QUOTE_KEY)


class _Sampler(threading.Thread):
    """Polls the process RSS and DuckDB's own memory while the recompute runs."""

    def __init__(self, con: duckdb.DuckDBPyConnection, interval_s: float = 0.05):
        super().__init__(daemon=True)
        self.cursor = con.cursor()
        self.interval_s = interval_s
        self.stop = threading.Event()
        self.peak_rss = 0
        self.peak_duckdb = 0
        self.peak_spill = 0

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak_rss = max(self.peak_rss, _current_rss())
            try:
                used, spilled = self.cursor.execute(
                    "select sum(memory_usage_bytes), sum(temporary_storage_bytes) from duckdb_memory()"
                ).fetchone()
                self.peak_duckdb = max(self.peak_duckdb, used or 0)
                self.peak_spill = max(self.peak_spill, spilled or 0)
            except duckdb.Error:
                pass
            self.stop.wait(self.interval_s)

    def finish(self) -> None:
        self.stop.set()
        self.join()
        self.cursor.close()


def _measure_rebuild(con: duckdb.DuckDBPyConnection) -> dict:
    from warehouse.rebuild import rebuild_estimates

    rss_before = _current_rss()
    sampler = _Sampler(con)
    sampler.start()
    started = time.perf_counter()
    try:
        counts = rebuild_estimates(con, "bench", BENCH_DATE)
    finally:
        wall = time.perf_counter() - started
        sampler.finish()
    rows = counts["estimate"]
    # `estimate` is a view: the rebuild evaluates every row (the marts aggregate over all of
    # them) without storing it. Reading every row and column once is what a full query costs.
    started = time.perf_counter()
    con.execute("select count(hash(e)) from estimate e").fetchone()
    scan = time.perf_counter() - started
    return {
        "rows": rows,
        "seconds": round(wall, 3),
        "full_scan_seconds": round(scan, 3),
        "rows_per_s": round(rows / wall) if wall > 0 else 0,
        "counts": counts,
        "rss_before_mb": _mb(rss_before),
        "recompute_peak_rss_mb": _mb(sampler.peak_rss),
        "peak_rss_mb": _mb(_max_rss()),
        "duckdb_peak_mb": _mb(sampler.peak_duckdb),
        "duckdb_spill_peak_mb": _mb(sampler.peak_spill),
    }


def _describe(con, plan: Plan, estimates: int, database: str, setup_s: float) -> dict:
    sizes = con.execute(
        """select (select count(*) from workload), (select count(*) from platform),
                  (select count(*) from price_quote), (select count(*) from topology_estimate),
                  (select count(*) from topology_estimate where fits),
                  current_setting('threads'), current_setting('memory_limit'),
                  current_setting('preserve_insertion_order')"""
    ).fetchone()
    return {
        "target": estimates,
        "predicted_rows": plan.predicted_rows,
        "base_rows": plan.base_rows,
        "workload_copies": plan.workload_copies,
        "platform_copies": plan.platform_copies,
        "quote_copies": plan.quote_copies,
        "workloads": sizes[0],
        "platforms": sizes[1],
        "quotes": sizes[2],
        "topologies": sizes[3],
        "feasible_topologies": sizes[4],
        "threads": int(sizes[5]),
        "memory_limit": sizes[6],
        "preserve_insertion_order": sizes[7],
        "database": database,
        "setup_s": round(setup_s, 3),
        "duckdb_version": duckdb.__version__,
    }


def profile_models(con: duckdb.DuckDBPyConnection) -> list[tuple[str, float]]:
    """Seconds per model file, each run on its own (in order, in one transaction, as rebuild does)."""
    from warehouse.db import model_files, transaction

    timings = []
    with transaction(con):
        for name, sql in model_files():
            started = time.perf_counter()
            con.execute(sql)
            timings.append((name, round(time.perf_counter() - started, 3)))
    return timings


def _current_rss() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _max_rss() -> int:
    # ru_maxrss is KiB on Linux (bytes on macOS): the process's peak, setup included
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if os.uname().sysname == "Darwin" else peak * 1024


def _mb(n: int | float) -> float:
    return round(n / 2**20, 1)


def format_figures(figures: dict) -> str:
    """The figures as the `gpucalc bench` command prints them."""
    lines = [
        f"estimate rows      {figures['rows']:,} (target {figures['target']:,}, predicted "
        f"{figures['predicted_rows']:,})",
        f"recompute          {figures['seconds']:.2f} s wall, {figures['rows_per_s']:,} rows/s",
        f"full scan          {figures['full_scan_seconds']:.2f} s to read every estimate row and column once "
        "(estimate is a view)",
        f"peak RSS           {figures['peak_rss_mb']:,.0f} MB process "
        f"({figures['recompute_peak_rss_mb']:,.0f} MB sampled during the recompute, "
        f"{figures['rss_before_mb']:,.0f} MB before)",
        f"DuckDB memory      {figures['duckdb_peak_mb']:,.0f} MB peak in use, "
        f"{figures['duckdb_spill_peak_mb']:,.0f} MB spilled at most",
        f"DuckDB settings    threads={figures['threads']} memory_limit={figures['memory_limit']} "
        f"preserve_insertion_order={figures['preserve_insertion_order']} database={figures['database']} "
        f"(duckdb {figures['duckdb_version']})",
        f"warehouse          {figures['workloads']} workloads x {figures['platforms']} platforms, "
        f"{figures['quotes']:,} quotes; {figures['topologies']:,} topologies "
        f"({figures['feasible_topologies']:,} feasible); copies W={figures['workload_copies']} "
        f"P={figures['platform_copies']} Q={figures['quote_copies']}; base {figures['base_rows']:,} rows",
        f"setup              {figures['setup_s']:.2f} s (not timed in the figures above)",
    ]
    if "database_file_mb" in figures:
        lines.append(f"database file      {figures['database_file_mb']:,.0f} MB")
    counts = figures.get("counts") or {}
    if counts:
        lines.append("tables             " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    for name, seconds in figures.get("profile", []):
        lines.append(f"  model {name:<28} {seconds:8.2f} s")
    return "\n".join(lines)
