"""workloads/<id>.md: one workload's every option, ranked, its split, and what was refused."""

from __future__ import annotations

import polars as pl

from reports import chart_set
from reports.headline import workload_headline
from reports.markdown import code, escape, image, page_link, table
from reports.options import option_table
from warehouse.questions.plain_text import fmt_number

REFUSAL_COLUMNS = {
    "platform_id": ("platform", None),
    "gpu_counts": ("GPU counts refused", lambda v: ", ".join(str(n) for n in v)),
    "reason": ("why (at the largest count)", None),
    "fits_from_gpus": ("fits from", lambda v: f"{v} GPUs"),
}


def page(workload: dict, options: pl.DataFrame, refusals: pl.DataFrame, decisions: pl.DataFrame, report_date,
         charts: dict) -> str:
    wid = workload["workload_id"]
    out = [f"# {escape(workload['name'])}\n",
           f"{page_link(f'Back to the report of {report_date}', '../index.md')}\n",
           f"{code(wid)}: {escape(workload['kind'])}, model {code(workload['model_id'])} in "
           f"{escape(workload['dtype'])}; the job is {fmt_number(workload['total_tokens'])} "
           f"{escape(workload['token_unit'] or 'tokens')}.\n"]
    out.append("\n".join(workload_headline(workload, options, decisions)) + "\n")
    chart = chart_set.workload_chart_file(wid)
    if chart in charts:
        out.append(f"{image(charts[chart].title, '../' + chart)}\n")
    out.append("## Every option, cheapest first\n")
    out.append(
        "One row per platform, GPU count and price basis: the cheapest quote for it (ties: provider, region, zone, "
        "instance). `split` is the layout: tensor (TP), pipeline (PP) and data (DP) parallel for training; TP x PP "
        "per replica, the replicas and the batch for serving; target and drafter GPUs for role pipelines. "
        "`Pareto`: no other option is both faster and cheaper.\n"
    )
    out.append(option_table(options))
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
