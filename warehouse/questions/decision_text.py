"""Render a job's choices (rent on-demand, spot, reserved, buy, API) for the terminal."""

from __future__ import annotations

import textwrap

import polars as pl

from warehouse.questions.decide import rate_text
from warehouse.questions.decision_ranges import api_row
from warehouse.questions.fleet_rows import fleet_text
from warehouse.questions.plain_text import decision_text  # the report's wording too


def render(workload: dict, rows: pl.DataFrame, refused: list[tuple[str, int]] = (),
           shapes: dict[str, dict] | None = None) -> str:
    """`refused`: the commonest reasons the job's layouts do not fit (decide.refusals), said when
    no GPU option is left; `shapes`: the platforms' systems (fleet_rows.platform_shapes), to say
    each fleet in words."""
    serving = workload["kind"] == "serving"
    out = [f"{workload['name']} ({workload['workload_id']})"]
    if serving and workload.get("demand_tokens_per_s"):
        limits = ", ".join(f"{k.upper().replace('_MS', '')} {workload[k]:g} ms" for k in ("ttft_ms", "tpot_ms")
                           if workload.get(k))
        out.append(f"demand {rate_text(workload['demand_tokens_per_s'])} {workload['token_unit'] or 'tokens'}/s"
                   + (f", SLA {limits}" if limits else "") + "; each fleet is sized to meet both")
    out.append("Each choice on its own price basis (never the cheapest of several mixed):")
    out.append("")
    if (workload.get("purpose") or "job") != "job":
        out += textwrap.wrap(
            f"{workload['workload_id']} is a benchmark definition, not a job: its rows in `estimate` time and price "
            "it per layout, but only jobs are compared here (`gpucalc serve` sizes a fleet to your demand; a "
            "workload of your own with purpose 'job' in <data>/catalog/workload.csv is compared every night).",
            width=110)
    elif rows.height == 0:
        out.append("No priced option fits this job with the bases asked for.")
    gpu_options = rows.filter(pl.col("pricing") != "api").height if rows.height else 0
    if not gpu_options and refused:
        why = "; ".join(f"{reason} ({layouts:,} layout{'s' if layouts != 1 else ''})" for reason, layouts in refused)
        out += textwrap.wrap(f"No GPU fleet fits this job: {why}.", width=110)
    api = api_row(workload, rows.iter_rows(named=True))
    for row in rows.iter_rows(named=True):
        fleet = fleet_text(row, shapes) if shapes is not None and row.get("platform_id") else None
        what, says = decision_text(row, serving, fleet, api)
        label = f"{what} [{row['platform_id']}]" if row.get("platform_id") and row["choice"] != "measured run" else what
        out.append(label)
        out += textwrap.wrap(says, width=110, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(out)
