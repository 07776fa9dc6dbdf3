"""Render the leave-one-accelerator-out backtest for the terminal."""

from __future__ import annotations

import duckdb

QUERIES = {
    "per workload kind": "kind",
    "per accelerator held out": "gpu_id",
    "per workload": "workload_id",
}


def render(con: duckdb.DuckDBPyConnection) -> str:
    out = [
        "Leave-one-accelerator-out backtest: every benchmark result is predicted with calibration learnt",
        "only from other accelerators (the latest result of each workload x GPU counts).",
        "",
    ]
    for title, column in QUERIES.items():
        rows = con.execute(
            f"""select {column}, count(*) as points,
                       count(loao_factor) as predicted,
                       quantile_cont(loao_ape, 0.5) filter (where loao_factor is not null) as median_ape,
                       quantile_cont(loao_ape, 0.9) filter (where loao_factor is not null) as p90_ape,
                       quantile_cont(default_ape, 0.5) as default_median_ape
                from backtest group by all order by 1"""
        ).fetchall()
        out.append(f"{title}:")
        out.append(f"  {'':24} {'points':>6} {'held-out':>8} {'median':>7} {'p90':>7} {'uncalibrated median':>20}")
        for name, points, predicted, median, p90, default in rows:
            fmt = lambda v: f"{100 * v:6.1f}%" if v is not None else "     - "  # noqa: E731
            out.append(f"  {name:24} {points:>6} {predicted:>8} {fmt(median)} {fmt(p90)} {fmt(default):>20}")
        out.append("")
    overall = con.execute(
        """select quantile_cont(loao_ape, 0.5), quantile_cont(loao_ape, 0.9), count(*) from backtest
           where loao_factor is not null"""
    ).fetchone()
    if overall[2]:
        out.append(
            f"overall: median {100 * overall[0]:.1f}%, 90th percentile {100 * overall[1]:.1f}% over {overall[2]} points"
        )
    return "\n".join(out)
