"""What each workload's headline says: the lines the index and the workload page lead with.

Kept apart from the page machinery so what a headline says can change (which options, which
price basis) without touching pages, charts or change detection. Takes the workload's row of
`night_workload` and its options (`night_option` rows), returns markdown lines.
"""

from __future__ import annotations

import polars as pl

from reports.changes import ranked
from reports.markdown import escape
from warehouse.questions.decision_ranges import api_row
from warehouse.questions.plain_text import decision_text, fmt_hours, fmt_number, fmt_pct, fmt_usd

# The order a headline answers in: what to rent on demand, what spot would save, when buying
# pays, what the API would cost; a measured run first, as the baseline the others beat or not.
CHOICES = [("measured run", "baseline"), ("rent on-demand", "cheapest"), ("rent on-demand", "fastest"),
           ("rent spot", "cheapest"), ("rent reserved", "cheapest"), ("buy", "cheapest"),
           ("managed API", "cheapest")]


def workload_headline(workload: dict, options: pl.DataFrame, decisions: pl.DataFrame | None = None) -> list[str]:
    """Bullet lines, one per choice on its own price basis (decision rows); without decision rows
    (an older night), the fastest and the cheapest option and the managed-API baseline."""
    if decisions is not None and decisions.height:
        rows = {(d["choice"], d["pick"]): d for d in decisions.iter_rows(named=True)}
        serving, api = workload["kind"] == "serving", api_row(workload, rows.values())
        return [_decision_line(rows[key], serving, api) for key in CHOICES if key in rows]
    if options.height == 0:
        return ["- No priced option fits this workload tonight."]
    fastest = ranked(options, ["time_to_finish_h", "usd_total"]).row(0, named=True)
    cheapest = ranked(options, ["usd_total", "time_to_finish_h"]).row(0, named=True)
    lines = [_option_line(fastest, "Fastest"), _option_line(cheapest, "Cheapest")]
    api = _api_line(workload)
    return lines + ([api] if api else [])


def _decision_line(d: dict, serving: bool, api: dict | None) -> str:
    what, says = decision_text(d, serving, api=api)
    return f"- **{what}:** {escape(says)}"


def night_headline(summary: dict, changes_line: str) -> str:
    """One line for the history page: the night's run and what changed."""
    estimates = summary.get("estimate_rows")
    counts = f"{estimates:,} priced estimates" if estimates is not None else "no run summary"
    return f"{counts}; {changes_line}"


def _option_line(option: dict, what: str) -> str:
    band = f" ±{fmt_pct(option['error_p50'])} median error" if option.get("error_p50") is not None else ""
    where = escape(f"{option['provider']} {option['instance_type']}")
    return (
        f"- **{what}:** {option['n_gpus']}x {escape(option['platform_id'])} ({escape(option['layout'])}) from "
        f"{where} ({escape(option['pricing'])}): {fmt_hours(option['time_to_finish_h'])}, "
        f"{fmt_usd(option['usd_total'])}, {fmt_number(option['tokens_per_s'])} tokens/s; "
        f"bottleneck: {escape(option['bottleneck'])}; {escape(option['confidence'])}{band}"
    )


def _api_line(workload: dict) -> str | None:
    if workload["kind"] != "serving" or workload.get("api_provider") is None:
        return None
    api, own = workload["api_usd_per_mtok_output"], workload["self_hosted_usd_per_mtok"]
    verdict = "cheaper than self-hosting" if own is None or api < own else "dearer than the cheapest option"
    return (
        f"- **Managed API:** {escape(workload['api_provider'])} at {fmt_usd(api)} per million output tokens, "
        f"input included at this workload's input/output ratio (price of {workload['api_observed_at']}): {verdict}."
    )
