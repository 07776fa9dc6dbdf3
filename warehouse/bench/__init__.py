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

Two recomputes are timed: the full one (a first night, or one after the catalog or the
benchmarks changed) and a later night on which only prices moved, which keeps the layouts'
models' tables (warehouse/build/topology_inputs.py). Each is also given as a multiple of DuckDB's
own floor on the same machine in the same run (`_floor`).

The synthetic rows are inserted directly, without the great-expectations suites: the
bundled data validates clean, and the bench measures the recompute, not the loads. gpucalc's
cache is a private, empty one in the bench's temporary directory: the same N gives the same
inputs, whose layouts an earlier bench's cache entry would otherwise copy back
(warehouse/build/topology_cache.py) instead of computing them; keeping them is timed, as a first
night at that size pays for it.
"""

from __future__ import annotations

import os
import resource
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse.bench.compare import BACKENDS, copy_inputs, lake_location, storage_mb
from warehouse.bench.scale import BENCH_DATE, Plan, load_base, plan_scale, scale


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

    `database` is "file" (a DuckDB file, like the nightly warehouse), "memory", or a DuckLake:
    "ducklake-sqlite" / "ducklake-duckdb" (warehouse/bench/compare.py: built as a file, copied
    into the lake untimed, recomputed on the lake).
    `threads` / `memory_limit` (DuckDB syntax, e.g. "3GB") and any other DuckDB `settings`
    are applied before anything runs; None keeps DuckDB's defaults, as the nightly run does.
    `profile=True` then runs the model files one by one on the same warehouse and adds their
    timings.
    """
    if estimates < 1:
        raise ValueError("estimates must be a positive number of rows")
    if database not in BACKENDS:
        raise ValueError(f"database must be one of {', '.join(BACKENDS)}")
    lake = database.startswith("ducklake")
    with tempfile.TemporaryDirectory(prefix="gpucalc-bench-", dir=workdir) as tmp, _private_cache(Path(tmp)):
        name = "source.duckdb" if lake else "bench.duckdb"  # a lake's inputs are built in a file first
        location = str(Path(tmp) / name) if database != "memory" else ":memory:"
        con = _connect(location, tmp, threads, memory_limit, settings)
        try:
            setup_started = time.perf_counter()
            load_base(con)
            plan = plan_scale(con, estimates, workload_copies, platform_copies)
            scale(con, plan)
            con.execute("checkpoint")
            if lake:  # the same scaled inputs, moved into a fresh lake
                source, (uri, data_path) = con, lake_location(database, tmp)
                con = _connect(uri, tmp, threads, memory_limit, settings, data_path)
                copy_inputs(source, con)
                source.close()
            setup_s = time.perf_counter() - setup_started
            figures = _measure_rebuild(con)
            figures.update(_measure_price_night(con))
            figures.update(_floor(con, figures["rows"]))
            floor = max(figures["floor_seconds"], 1e-9)
            figures["floor_ratio"] = round(figures["seconds"] / floor, 1)
            figures["price_night_floor_ratio"] = round(figures["price_night_seconds"] / floor, 1)
            figures.update(_describe(con, plan, estimates, database, setup_s))
            if database == "file":
                figures["database_file_mb"] = _mb(os.path.getsize(location))
            elif lake:
                figures["database_file_mb"] = storage_mb(tmp)
            if profile:
                figures["profile"] = profile_models(con)
        finally:
            con.close()
    return figures


def run_benches(estimates: int, backends: list[str], **options) -> dict[str, dict]:
    """The same bench on each backend in turn (one at a time: they would compete for the cores)."""
    return {backend: run_bench(estimates, database=backend, **options) for backend in backends}


@contextmanager
def _private_cache(tmp: Path) -> Iterator[None]:
    """GPUCALC_CACHE_DIR set to an empty folder in `tmp` while the bench runs (settings.cache_dir)."""
    before = os.environ.get("GPUCALC_CACHE_DIR")
    os.environ["GPUCALC_CACHE_DIR"] = str(tmp / "cache")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("GPUCALC_CACHE_DIR", None)
        else:
            os.environ["GPUCALC_CACHE_DIR"] = before


def _connect(location, tmp, threads, memory_limit, settings, data_path=None) -> duckdb.DuckDBPyConnection:
    from warehouse.store import db

    con = db.connect(location, data_path=data_path)
    con.execute("set enable_progress_bar = false")
    con.execute("set temp_directory = ?", [str(Path(tmp) / "spill")])
    if threads:
        con.execute(f"set threads = {int(threads)}")
    if memory_limit:
        con.execute("set memory_limit = ?", [memory_limit])
    for name, value in (settings or {}).items():
        con.execute(f"set {name} = ?", [value])
    return con


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
            self.poll()
            self.stop.wait(self.interval_s)

    def poll(self) -> None:
        self.peak_rss = max(self.peak_rss, _current_rss())
        try:
            # fetchall, not fetchone: a result left unread keeps its transaction open, and DuckDB
            # does not checkpoint at a commit while another transaction is open, so the timed
            # commit would leave out the checkpoint a nightly run pays (docs/scale.md)
            [(used, spilled)] = self.cursor.execute(
                "select sum(memory_usage_bytes), sum(temporary_storage_bytes) from duckdb_memory()"
            ).fetchall()
            self.peak_duckdb = max(self.peak_duckdb, used or 0)
            self.peak_spill = max(self.peak_spill, spilled or 0)
        except duckdb.Error:
            pass

    def finish(self) -> None:
        self.stop.set()
        self.join()
        self.cursor.close()


def _floor(con: duckdb.DuckDBPyConnection, rows: int) -> dict:
    """DuckDB's own floor on this machine, now, with the same settings: materialise as many rows
    as the recompute produced, each four arithmetic expressions. The recompute's time over it
    says how much the models cost beyond moving that many rows at all."""
    started = time.perf_counter()
    con.execute(
        """create or replace temp table bench_floor as
           select i * 1.5 as a, i / 7.0 as b, i % 13 as c, sqrt(i) as d from range(?) t(i)""",
        [max(rows, 1)],
    )
    seconds = time.perf_counter() - started
    con.execute("drop table bench_floor")
    return {"floor_seconds": round(seconds, 3)}


def _measure_rebuild(con: duckdb.DuckDBPyConnection) -> dict:
    from warehouse.build.rebuild import rebuild_estimates

    rss_before = _current_rss()
    _as_a_night(con, "bench")
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


def _as_a_night(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Log `run_id` as a nightly run of the bench's day, so its rebuild takes the report snapshot
    a real night takes (an ingest's rebuild skips it: warehouse/build/rebuild.py)."""
    con.execute("insert into run_log (run_id, run_date, mode, status) values (?, ?, 'offline', 'running')",
                [run_id, BENCH_DATE])


def _measure_price_night(con: duckdb.DuckDBPyConnection) -> dict:
    """The recompute of a later night on which only prices moved, as most nights go.

    Every quote moves 1%; the catalog and the benchmarks do not, so the models that enumerate
    and time the layouts keep last rebuild's tables (warehouse/build/topology_inputs.py) and the
    prices, estimates and marts are computed again. Whether the layouts are kept is asked of
    the same check the rebuild makes, before it runs (untimed), not assumed.
    """
    from warehouse.build import topology_inputs
    from warehouse.build.rebuild import rebuild_estimates
    from warehouse.store.db import model_files

    con.execute("update price_quote set usd_per_instance_hour = usd_per_instance_hour * 1.01, "
                "usd_per_gpu_hour = usd_per_gpu_hour * 1.01")
    _, kept = topology_inputs.check(con, model_files())
    _as_a_night(con, "bench-later-night")
    started = time.perf_counter()
    rebuild_estimates(con, "bench-later-night", BENCH_DATE)
    seconds = time.perf_counter() - started
    return {"price_night_seconds": round(seconds, 3), "price_night_layouts_kept": kept}


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
    from warehouse.store.db import model_files, transaction

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
        f"recompute          {figures['seconds']:.2f} s wall, {figures['rows_per_s']:,} rows/s "
        "(as a nightly run: the report snapshot included)",
        f"DuckDB floor       {figures['floor_seconds']:.2f} s to materialise as many rows of 4 arithmetic "
        f"expressions: the recompute is {figures['floor_ratio']:.1f}x that",
        f"later night        {figures['price_night_seconds']:.2f} s wall after every price moved, "
        f"{figures['price_night_floor_ratio']:.1f}x the floor; the layouts' "
        + ("models kept (catalog and benchmarks unchanged)" if figures["price_night_layouts_kept"]
           else "models computed again"),
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
