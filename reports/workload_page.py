"""workloads/<id>.md: one workload's every option, one ranking per price basis, and what was refused."""

from __future__ import annotations

import polars as pl

from reports import chart_set
from reports.headline import workload_headline
from reports.markdown import code, escape, image, page_link, table
from reports.options import basis_tables
from warehouse.questions.plain_text import fmt_number

REFUSAL_COLUMNS = {
    "platform_id": ("platform", None),
    "gpu_counts": ("GPU counts refused", lambda v: ", ".join(str(n) for n in v)),
    "reason": ("why (at the largest count)", None),
    "fits_from_gpus": ("fits from", lambda v: f"{v} GPUs"),
}


def page(workload: dict, options: pl.DataFrame, refusals: pl.DataFrame, decisions: pl.DataFrame,
         platforms: pl.DataFrame, report_date, charts: dict) -> str:
    wid = workload["workload_id"]
    out = [f"# {escape(workload['name'])}\n",
           f"{page_link(f'Back to the report of {report_date}', '../index.md')}\n",
           f"{code(wid)}: {escape(workload['kind'])}, model {code(workload['model_id'])} in "
           f"{escape(workload['dtype'])}; the job is {fmt_number(workload['total_tokens'])} "
           f"{escape(workload['token_unit'] or 'tokens')}.\n"]
    out.append("\n".join(workload_headline(workload, options, decisions)) + "\n")
    for chart in (chart_set.workload_chart_file(wid), chart_set.curve_chart_file(wid)):
        if chart in charts:
            out.append(f"{image(charts[chart].title, '../' + chart)}\n")
    serving = workload["kind"] == "serving"
    same_time = "Total cost serves the whole job at its demand, so time is the same on every fleet. "
    out.append(
        "Every option, one ranking per price basis, cheapest first (ties: faster first): one row per platform and "
        "GPU count, the cheapest quote for it (ties: provider, region, zone, instance). Figures are rounded to "
        "what their error band supports: two significant figures at ±10% or wider, three below; each table "
        f"says its times in one unit. {same_time if serving else ''}"
        "`layout`: tensor, pipeline and data parallel for training, the parallelism and batch per replica for "
        "serving, target and drafter GPUs for role pipelines. `Pareto`: no other option on that basis is both "
        "faster and cheaper. In the HTML page a click on a column's header sorts by it, and the box above each "
        "table filters its rows.\n"
    )
    for basis, ranking in basis_tables(options, platforms, serving):
        out.append(f"## {escape(basis.capitalize())}: every option, cheapest first\n")
        out.append(ranking)
    for kind, title, why in (
        ("memory", "Refused: does not fit in memory", "needs more memory per GPU than the GPU has (after headroom)"),
        ("latency", "Refused: cannot meet the latency limits", "no batch meets the workload's TTFT/TPOT limits"),
    ):
        refused = refusals.filter(pl.col("refusal_kind") == kind)
        if refused.height:
            out.append(f"## {title}\n")
            out.append(f"Layouts refused because the model {why}; `fits from`: the smallest GPU count of that "
                       "platform that fits, if any.\n")
            out.append(table(refused, REFUSAL_COLUMNS))
    return "\n".join(out)
