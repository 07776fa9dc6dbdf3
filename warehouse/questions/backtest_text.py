"""Render the leave-one-accelerator-out backtest for the terminal."""

from __future__ import annotations

import duckdb

from warehouse.store.sql_text import sql_text

GROUPS = {
    "per workload kind": "kind",
    "per accelerator held out": "gpu_id",
    "per workload": "workload_id",
}


def _pct(value: float | None) -> str:
    return f"{100 * value:6.1f}%" if value is not None else "     - "


def render(con: duckdb.DuckDBPyConnection) -> str:
    out = [
        "Leave-one-accelerator-out backtest: every benchmark result (the latest round of each workload x GPU)",
        "predicted as the estimate of an accelerator nobody measured would be: calibrated only at the levels",
        "the backtest trusts, from other accelerators, else the documented efficiencies alone.",
        "",
    ]
    for title, column in GROUPS.items():
        rows = con.execute(sql_text("warehouse.questions", "backtest_errors.sql", column=column)).fetchall()
        out.append(f"{title}:")
        out.append(f"  {'':24} {'points':>6} {'calibrated':>10} {'median':>7} {'p90':>7} {'uncalibrated median':>20}")
        for name, points, calibrated, median, p90, default in rows:
            out.append(f"  {name:24} {points:>6} {calibrated:>10} {_pct(median)} {_pct(p90)} {_pct(default):>20}")
        out.append("")
    out.append("calibration levels (held-out points, median error with the level vs without; used only if better")
    out.append("over at least min_backtest_points points):")
    for level, kind, points, median, default, trusted in con.execute(
        """select level, kind, points, median_ape, median_default_ape, trusted from calibration_trust
           order by kind, level"""
    ).fetchall():
        used = "used" if trusted else "not used"
        out.append(f"  {kind:20} level {level}  {points:>4} points  {_pct(median)} vs {_pct(default)}  {used}")
    out.append("")
    overall = con.execute(
        "select quantile_cont(loao_ape, 0.5), quantile_cont(loao_ape, 0.9), count(*) from backtest"
    ).fetchone()
    if overall[2]:
        out.append(
            f"overall: median {100 * overall[0]:.1f}%, 90th percentile {100 * overall[1]:.1f}% over {overall[2]} points"
        )
    return "\n".join(out)
