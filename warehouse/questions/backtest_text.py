"""Render the leave-one-accelerator-out backtest for the terminal."""

from __future__ import annotations

import textwrap
from typing import Any

import duckdb

from warehouse.questions.backtest_figures import BASELINE_RULE, COVERAGE_RULE, SCALED_BY, figures

SHORT_SCALE = {"dense peak FLOP/s": "FLOP/s", "memory bandwidth": "bandwidth"}


def _pct(value: float | None) -> str:
    return f"{100 * value:6.1f}%" if value is not None else "     - "


def _share(within: int, points: int) -> str:
    return f"{within:>4}/{points:<4}{_pct(within / points)}" if points else f"{'no band earned':<16}"


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, width=100, initial_indent="  ", subsequent_indent="  ")


def render(con: duckdb.DuckDBPyConnection) -> str:
    return render_figures(figures(con))


def render_figures(found: dict[str, Any]) -> str:
    out = [
        "Leave-one-accelerator-out backtest: every benchmark result (the latest round of each workload x GPU)",
        "predicted as the estimate of an accelerator nobody measured would be: calibrated only at the levels",
        "the backtest trusts, from other accelerators, else the documented efficiencies alone.",
        "",
    ]
    for title, rows in found["errors"].items():
        out.append(f"{title}:")
        out.append(f"  {'':24} {'points':>6} {'calibrated':>10} {'median':>7} {'p90':>7} {'uncalibrated median':>20}")
        for row in rows:
            name, points, calibrated, median, p90, default = row.values()
            out.append(f"  {name:24} {points:>6} {calibrated:>10} {_pct(median)} {_pct(p90)} {_pct(default):>20}")
        out.append("")
    out += _baseline(found["baseline_and_coverage"])
    out += _coverage(found["baseline_and_coverage"])
    out.append("calibration levels (held-out points, median error with the level vs without; used only if better")
    out.append("over at least min_backtest_points points):")
    for row in found["calibration_levels"]:
        used = "used" if row["trusted"] else "not used"
        out.append(
            f"  {row['kind']:20} level {row['level']}  {row['points']:>4} points  "
            f"{_pct(row['median_ape'])} vs {_pct(row['median_default_ape'])}  {used}"
        )
    out.append("")
    out += _families(found.get("leave_one_family_out") or [])
    out += _rounds(found.get("leave_latest_round_out") or [])
    overall = found["overall"]
    if overall["points"]:
        out.append(
            f"overall: median {100 * overall['median_ape']:.1f}%, 90th percentile {100 * overall['p90_ape']:.1f}%"
            f" over {overall['points']} points"
        )
    return "\n".join(out)


def _baseline(groups: dict[str, list[dict[str, Any]]]) -> list[str]:
    out = ["The model against a naive baseline: errors |predicted - measured| / measured, the median (model,",
           "naive) and the 90th percentile (p90).", ""]
    out += _wrapped("The baseline: " + BASELINE_RULE + ". The ratio:")
    out += [f"    {what}: {ratio}" for what, ratio in SCALED_BY.items()]
    out += _wrapped("A point whose workload no other accelerator measured has no baseline. The model is "
                    "compared on the points the baseline predicts, and shown on every point of the class.")
    out.append("")
    out.append(f"  {'':42} {'':6} {'every point':^15}   {'the points with a baseline':^36}   {'no':>4}")
    out.append(
        f"  {'':42} {'points':>6} {'model':>7} {'p90':>7}   {'n':>4} {'model':>7} {'p90':>7} {'naive':>7}"
        f" {'p90':>7}   {'base':>4}  scaled by"
    )
    for title, rows in groups.items():
        if title != "every point":
            out.append(f" {title}:")
        for row in rows:
            scaled = " + ".join(SHORT_SCALE.get(s, s) for s in (row["scaled_by"] or "").split(", ") if s)
            out.append(
                f"  {row['name']:42} {row['points']:>6} {_pct(row['model_median'])} {_pct(row['model_p90'])}"
                f"   {row['baseline_points']:>4} {_pct(row['model_median_on_baseline'])}"
                f" {_pct(row['model_p90_on_baseline'])} {_pct(row['baseline_median'])} {_pct(row['baseline_p90'])}"
                f"   {row['no_baseline']:>4}  {scaled or '-'}"
            )
    out.append("")
    return out


def _coverage(groups: dict[str, list[dict[str, Any]]]) -> list[str]:
    out = ["Band coverage."]
    out += _wrapped("Per class, " + COVERAGE_RULE + ". The bands are those stated tonight, learnt from "
                    "these same held-out errors; a point whose level earned no band is counted apart.")
    out.append("")
    out.append(f"  {'':42} {'points':>6}  {'in the p50 band':<16}  {'in the p90 band':<16}  {'no band earned':>14}")
    for title, rows in groups.items():
        if title != "every point":
            out.append(f" {title}:")
        for row in rows:
            out.append(
                f"  {row['name']:42} {row['points']:>6}  {_share(row['within_p50'], row['p50_band_points'])}"
                f"  {_share(row['within_p90'], row['p90_band_points'])}  {row['no_band']:>14}"
            )
    out.append("")
    return out


def _with_and_without(row: dict[str, Any]) -> str:
    """A held-out row's median and p90 error, then the uncalibrated model's on the same points."""
    return (f"{_pct(row['median_ape'])} {_pct(row['p90_ape'])} {_pct(row['median_default_ape'])}"
            f" {_pct(row['p90_default_ape'])}")


def _families(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = _wrapped("Leave one model family out: each result predicted as a model family nobody measured in "
                   "that kind of workload would be, from the other families' results on the same accelerator, "
                   "else its GPU family, else every one; beside the documented efficiencies alone. Estimates of "
                   "such a family use the other families' factors only where they do better here.")
    out.append("")
    out.append(f"  {'':16} {'':42} {'points':>6} {'factored':>7} {'p90':>7} {'uncal.':>7} {'p90':>7}  used")
    for row in rows:
        out.append(
            f"  {row['kind']:16} {row['class']:42} {row['points']:>6} {_with_and_without(row)}"
            f"  {'yes' if row['used'] else 'no'}"
        )
    out.append("")
    return out


def _rounds(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = _wrapped("Leave the latest round out: each workload x GPU's latest result predicted from the round "
                   "before it on the same accelerator (the model's rate times that round's measured-to-modelled "
                   "ratio), beside the documented efficiencies alone: what software moved between the rounds, "
                   "the error of an estimate resting on an older round.")
    out.append("")
    out.append(f"  {'':42} {'rounds':>14} {'points':>6} {'earlier':>7} {'p90':>7} {'uncal.':>7} {'p90':>7}")
    for row in rows:
        out.append(
            f"  {row['class']:42} {row['rounds']:>14} {row['points']:>6} {_with_and_without(row)}"
        )
    out.append("")
    return out
