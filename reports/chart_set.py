"""The night's charts: picks each chart's data from the snapshot and names its file.

charts.py draws; this module decides what goes in, in a fixed order, so the same night
always yields the same files.
"""

from __future__ import annotations

import re

import polars as pl

from reports import charts, queries
from reports.changes import basis_rank
from reports.chart_png import Chart, ChartCache
from reports.night import Night


def slug(text: str) -> str:
    """A file-name-safe spelling of an id (workload, accelerator)."""
    return re.sub(r"[^a-z0-9._-]+", "-", str(text).lower()).strip("-.") or "x"


def workload_chart_file(workload_id: str) -> str:
    return f"chart-workload-{slug(workload_id)}.png"


def price_chart_file(gpu: str) -> str:
    return f"chart-price-{slug(gpu)}.png"


def curve_chart_file(workload_id: str) -> str:
    return f"chart-curve-{slug(workload_id)}.png"


BACKTEST_FILE = "chart-backtest.png"
BOTTLENECK_FILE = "chart-bottlenecks.png"


def workload_chart(workload: dict, options: pl.DataFrame, cache: ChartCache | None = None) -> Chart:
    """Every option of the workload (ordered by OPTION_KEY) against its cost: time to finish for a
    job, tokens/s per GPU for a serving job (which runs as long as it is served)."""
    per_mtok = workload["kind"] == "serving"
    rows = options.sort(queries.OPTION_KEY, nulls_last=True).to_dicts()
    what = "tokens/s per GPU against USD per million tokens" if per_mtok else "time to finish against total cost"
    title = f"{workload['workload_id']}: {what}, by price basis"
    return charts.options_chart(workload_chart_file(workload["workload_id"]), title, rows, per_mtok, cache)


def price_series(known: pl.DataFrame) -> dict[str, dict[tuple[str, str], list]]:
    """Per accelerator with prices on two observed days or more (a history to draw; one day is
    the prices page's table), per (provider, pricing): the cheapest USD per GPU-hour of each day."""
    with_history = known.filter(pl.col("observed_at").n_unique().over("gpu") >= 2)
    daily = (
        with_history.group_by("gpu", "provider", "pricing", "observed_at")
        .agg(pl.col("usd_per_gpu_hour").min())
        .sort("gpu", "provider", "pricing", "observed_at")
    )
    series: dict[str, dict[tuple[str, str], list]] = {}
    for row in daily.iter_rows(named=True):
        key = (row["provider"], row["pricing"])
        series.setdefault(row["gpu"], {}).setdefault(key, []).append((row["observed_at"], row["usd_per_gpu_hour"]))
    return series


def price_chart(gpu: str, lines: dict[tuple[str, str], list], cache: ChartCache | None = None) -> Chart:
    return charts.price_chart(price_chart_file(gpu), gpu, lines, cache)


def backtest_chart(con, night: Night, cache: ChartCache | None = None) -> Chart:
    points = queries.backtest(con, night)
    held_out = points.filter(pl.col("loao_factor").is_not_null())
    p50 = held_out["loao_ape"].quantile(0.5, "linear") if held_out.height else None
    p90 = held_out["loao_ape"].quantile(0.9, "linear") if held_out.height else None
    return charts.backtest_chart(BACKTEST_FILE, points.to_dicts(), p50, p90, cache)


def bottleneck_chart(con, night: Night, cache: ChartCache | None = None) -> Chart:
    mix: dict[str, dict[str, int]] = {}
    for row in queries.bottlenecks(con, night).iter_rows(named=True):
        mix.setdefault(row["platform_id"], {})[row["bottleneck"]] = row["topologies"]
    return charts.bottleneck_chart(BOTTLENECK_FILE, mix, cache)


def curve_basis(points: pl.DataFrame) -> str | None:
    """The basis a curve is drawn and said on: on-demand, as `serve --sweep` answers, else the first present."""
    bases = sorted(points["pricing"].unique().to_list(), key=basis_rank) if points.height else []
    return "on_demand" if "on_demand" in bases else (bases[0] if bases else None)


def curve_chart(workload: dict, points: pl.DataFrame, cache: ChartCache | None = None) -> Chart:
    """The job's interactivity curve on curve_basis: one line per platform, each at its cheapest
    provider; below the cost, what each GPU of the fleet serves of the job's demand (the chosen
    layout's own rate per GPU leaves its prefill GPUs out, and the cheapest fleet at one TPOT need
    not be the fastest per GPU, so that rate zig-zags where the fleet's share cannot)."""
    workload_id, demand = workload["workload_id"], workload.get("demand_tokens_per_s")
    basis = curve_basis(points)
    rows = points.filter(pl.col("pricing") == basis).sort("platform_id", "tokens_per_s_per_user")
    lines: dict[str, list] = {}
    for row in rows.iter_rows(named=True):
        per_gpu = demand / row["fleet_gpus"] if demand and row["fleet_gpus"] else row["tokens_per_s_per_gpu"]
        lines.setdefault(row["platform_id"], []).append((row["tokens_per_s_per_user"], row["usd_per_mtok"], per_gpu))
    title = (f"{workload_id}: cost and throughput against tokens/s per user ({basis}, each platform at its "
             "cheapest provider)")
    return charts.curve_chart(curve_chart_file(workload_id), title, lines, cache)
