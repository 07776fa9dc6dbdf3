"""prices.md: the cheapest GPU-hour per accelerator and price basis, and each accelerator's price history."""

from __future__ import annotations

import polars as pl

from reports import chart_set
from reports.markdown import escape, image, page_link, table
from reports.queries import QUOTE_KEY, latest_prices
from warehouse.questions.plain_text import fmt_usd


def cheapest(known: pl.DataFrame, night) -> pl.DataFrame:
    """Per accelerator and price basis, the cheapest latest quote (ties: the quote's key)."""
    latest = latest_prices(known, night.run_date)
    return (
        latest.sort(["gpu", "pricing", pl.col("usd_per_gpu_hour").round_sig_figs(9), *QUOTE_KEY], nulls_last=True)
        .group_by("gpu", "pricing", maintain_order=True)
        .first()
    )


def page(known: pl.DataFrame, night, charts: dict) -> str:
    out = [f"# GPU prices — {night.run_date.isoformat()}\n", f"{page_link('Back to the report', 'index.md')}\n"]
    out.append("## Cheapest GPU-hour tonight\n")
    out.append("Per accelerator and price basis, the cheapest quote whose latest observation is on or before "
               "tonight (rental quotes; owning is priced per platform on the workload pages).\n")
    out.append(table(cheapest(known, night), {
        "gpu": ("GPU", None), "pricing": ("pricing", None), "usd_per_gpu_hour": ("USD/GPU-h", fmt_usd),
        "provider": ("provider", None), "region": ("region", None), "instance_type": ("instance", None),
        "gpus_per_instance": ("GPUs/instance", None), "observed_at": ("observed", str), "source": ("source", None)}))
    out.append("## Price history per accelerator\n")
    out.append("The cheapest USD per GPU-hour each provider quoted on each observed day, by price basis, as "
               "tonight's warehouse knows the history.\n")
    single = []
    for gpu in sorted(known["gpu"].unique().to_list()):
        name = chart_set.price_chart_file(gpu)
        if name in charts:
            out.append(f"### {escape(gpu)}\n")
            out.append(f"{image(charts[name].title, name)}\n")
        else:
            single.append(escape(gpu))
    if single:
        out.append(f"Observed on one day only so far (no history to draw; tonight's prices are above): "
                   f"{', '.join(single)}.\n")
    return "\n".join(out)
