"""What each workload's headline says: the lines the index and the workload page lead with.

Kept apart from the page machinery so what a headline says can change (which options, which
price basis) without touching pages, charts or change detection. Takes the workload's row of
`night_workload` and its options (`night_option` rows), returns markdown lines.
"""

from __future__ import annotations

import polars as pl

from reports.changes import ranked
from reports.markdown import escape, fmt_hours, fmt_number, fmt_pct, fmt_usd

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
        serving = workload["kind"] == "serving"
        return [_decision_line(rows[key], serving) for key in CHOICES if key in rows]
    if options.height == 0:
        return ["- No priced option fits this workload tonight."]
    fastest = ranked(options, ["time_to_finish_h", "usd_total"]).row(0, named=True)
    cheapest = ranked(options, ["usd_total", "time_to_finish_h"]).row(0, named=True)
    lines = [_option_line(fastest, "Fastest"), _option_line(cheapest, "Cheapest")]
    api = _api_line(workload)
    return lines + ([api] if api else [])


def _band(row: dict) -> str:
    if row.get("confidence") == "measured":
        return "measured"
    if row.get("error_p50") is None:
        return f"{row.get('confidence') or ''}, error unvalidated (fewer than 5 held-out points)"
    return f"{row['confidence']} ±{fmt_pct(row['error_p50'])} median error"


def decision_text(d: dict, serving: bool) -> tuple[str, str]:
    """A decision row in words, plain text: (what it is, what it says). Markdown and the
    terminal both print it (the headline escapes it)."""
    what = d["choice"].capitalize() + (f" ({d['pick']})" if d["choice"] == "rent on-demand" else "")
    if d["choice"] == "managed API":
        return "Managed API", (
            f"{d['provider']} at {fmt_usd(d['api_usd_per_mtok_output'])} per million output tokens, input included "
            f"at this workload's input/output ratio (price of {d['api_observed_at']})")
    gpus = d["fleet_gpus"] if d.get("fleet_gpus") is not None else d["n_gpus"]
    where = f"{d['provider']} {d['instance_type']}" if d.get("instance_type") else d["provider"]
    cost = (f"{fmt_usd(d['usd_per_mtok'])} per million {d['token_unit'] or 'tokens'} ({fmt_usd(d['usd_per_hour'])}/h)"
            if serving else f"{fmt_hours(d['time_to_finish_h'])}, {fmt_usd(d['usd_total'])}")
    extra = []
    if serving and d.get("deployments") and d.get("unit_gpus"):
        load = f" at {fmt_pct(d['fleet_utilization'])} of its capacity" if d.get("fleet_utilization") else ""
        extra.append(f"fleet of {d['deployments']} replica{'s' if d['deployments'] != 1 else ''} of "
                     f"{d['unit_gpus']} GPU{'s' if d['unit_gpus'] != 1 else ''}{load}")
    if d["choice"] in ("rent spot", "rent reserved", "buy") and d.get("cost_vs_on_demand") is not None:
        extra.append(f"{d['cost_vs_on_demand']:.2f}x the cheapest on-demand cost")
    if d["choice"] == "buy":
        be = d.get("break_even_utilization")
        extra.append("beats renting this layout on-demand if kept busy more than "
                     f"{fmt_pct(be)} of the time" if be is not None and be <= 1
                     else "no on-demand quote of this layout to compare" if be is None
                     else "never beats renting this layout on-demand at these prices")
    extra += [d[note] for note in ("basis_note", "capacity_note") if d.get(note)]
    tail = f"; {'; '.join(extra)}" if extra else ""
    bottleneck = f"; bottleneck: {d['bottleneck']}" if d.get("bottleneck") else ""
    return what, (f"{fmt_number(gpus)}x {d['platform_id']} ({d['layout'] or ''}) from {where} [{d['pricing']}]: "
                  f"{cost}{bottleneck}; {_band(d)}{tail}")


def _decision_line(d: dict, serving: bool) -> str:
    what, says = decision_text(d, serving)
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
