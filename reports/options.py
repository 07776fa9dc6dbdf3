"""What an option table shows: its order and columns. Pages call these; they own no layout.

Kept apart so the columns (e.g. a price basis beside every figure) can change without
touching the page machinery.
"""

from __future__ import annotations

import polars as pl

from reports.changes import ranked
from reports.markdown import table
from warehouse.questions.plain_text import fmt_hours, fmt_number, fmt_pct, fmt_usd

RANK_ORDER = ["usd_total", "time_to_finish_h"]  # cheapest first; ties: faster, then OPTION_KEY


def split(option: dict) -> str:
    """The layout split in words: tensor/pipeline/data parallel, replicas and batch, or the roles."""
    if option.get("producers") is not None:
        if option["producers"] == option["consumers"] == option["n_gpus"]:
            return f"target and drafter on each of the {option['n_gpus']} GPUs"
        return f"{option['producers']} target + {option['consumers']} drafter"
    parts = [f"TP{option['tp']}", f"PP{option['pp']}"]
    if option["kind"] == "serving":
        parts.append(f"{option['dp']} replica{'s' if option['dp'] != 1 else ''}, batch {option['batch']}")
    else:
        parts.append(f"DP{option['dp']}")
    return " ".join(parts)


def ranked_options(options: pl.DataFrame) -> pl.DataFrame:
    """Every option, cheapest first, numbered, with its split spelled out."""
    frame = ranked(options, RANK_ORDER)
    return frame.with_columns(
        pl.Series("rank", range(1, frame.height + 1)),
        pl.Series("split", [split(row) for row in frame.iter_rows(named=True)], dtype=pl.String),
    )


def option_table(options: pl.DataFrame) -> str:
    """The full ranked table of a workload page."""
    return table(ranked_options(options), {
        "rank": ("#", None),
        "platform_id": ("platform", None),
        "n_gpus": ("GPUs", None),
        "split": ("split", None),
        "layout": ("layout", None),
        "bottleneck": ("bottleneck", None),
        "tokens_per_s": ("tokens/s", fmt_number),
        "time_to_finish_h": ("time", fmt_hours),
        "usd_total": ("cost", fmt_usd),
        "usd_per_mtok": ("$/M tok", fmt_usd),
        "pricing": ("pricing", None),
        "provider": ("provider", None),
        "instance_type": ("instance", None),
        "region": ("region", None),
        "confidence": ("confidence", None),
        "error_p50": ("± (median)", fmt_pct),
        "on_frontier": ("Pareto", lambda v: "yes" if v else ""),
    })


def top_options(options: pl.DataFrame, per_workload: int = 1) -> list[dict]:
    """The cheapest and fastest option per workload, flat, for the Prefect table artifact."""
    rows = []
    for what, order in (("cheapest", RANK_ORDER), ("fastest", ["time_to_finish_h", "usd_total"])):
        best = ranked(options, order).group_by("workload_id", maintain_order=True).head(per_workload)
        for o in best.iter_rows(named=True):
            rows.append({
                "workload": o["workload_id"], "best": what, "platform": o["platform_id"], "gpus": o["n_gpus"],
                "layout": o["layout"], "provider": o["provider"], "instance": o["instance_type"],
                "pricing": o["pricing"], "hours": round(o["time_to_finish_h"], 3), "usd": round(o["usd_total"], 2),
            })
    return sorted(rows, key=lambda r: (r["workload"], r["best"]))
