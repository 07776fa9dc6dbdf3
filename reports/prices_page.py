"""prices.md: the cheapest GPU-hour per accelerator and price basis, and each accelerator's price history."""

from __future__ import annotations

import polars as pl

from reports import chart_set
from reports.markdown import escape, image, page_link, table
from reports.queries import QUOTE_KEY, latest_prices
from sources.bundled import PRICE_SOURCE, SNAPSHOT_DATE
from warehouse.questions.plain_text import fmt_usd

FRESH_DAYS = 30.0  # the default window (assumption price_fresh_days)


def aged(known: pl.DataFrame, night, fresh_days: float = FRESH_DAYS) -> pl.DataFrame:
    """Per quote, its latest observation up to the night with its age in days on the night and
    whether it is stale: older than `fresh_days` on the day it is judged on (latest_quote's rule:
    the night's date; the bundled snapshot's date for its rows)."""
    snapshot_day = min(night.run_date, SNAPSHOT_DATE)
    judged_on = (pl.when(pl.col("source") == PRICE_SOURCE).then(pl.lit(snapshot_day))
                 .otherwise(pl.lit(night.run_date)))
    age = (judged_on - pl.col("observed_at")).dt.total_days()
    return latest_prices(known, night.run_date).with_columns(
        (pl.lit(night.run_date) - pl.col("observed_at")).dt.total_days().alias("age_days"),  # as `gpucalc prices`
        (age > fresh_days).alias("stale"))


def cheapest(known: pl.DataFrame, night, fresh_days: float = FRESH_DAYS) -> pl.DataFrame:
    """Per accelerator and price basis, the cheapest fresh latest quote (ties: the quote's key)."""
    latest = aged(known, night, fresh_days).filter(~pl.col("stale"))
    return (
        latest.sort(["gpu", "pricing", pl.col("usd_per_gpu_hour").round_sig_figs(9), *QUOTE_KEY], nulls_last=True)
        .group_by("gpu", "pricing", maintain_order=True)
        .first()
    )


def page(known: pl.DataFrame, night, charts: dict, fresh_days: float = FRESH_DAYS) -> str:
    out = [f"# GPU prices — {night.run_date.isoformat()}\n", f"{page_link('Back to the report', 'index.md')}\n"]
    out.append("## Cheapest GPU-hour tonight\n")
    out.append("Per accelerator and price basis, the cheapest fresh quote whose latest observation is on or before "
               "tonight (rental quotes; owning is priced per platform on the workload pages).\n")
    out.append(table(cheapest(known, night, fresh_days), {
        "gpu": ("GPU", None), "pricing": ("pricing", None), "usd_per_gpu_hour": ("USD/GPU-h", fmt_usd),
        "provider": ("provider", None), "region": ("region", None), "instance_type": ("instance", None),
        "gpus_per_instance": ("GPUs/instance", None), "observed_at": ("observed", str), "source": ("source", None)}))
    stale = aged(known, night, fresh_days).filter(pl.col("stale")).sort(["gpu", "pricing", "usd_per_gpu_hour",
                                                                         *QUOTE_KEY], nulls_last=True)
    if stale.height:
        window = f"{fresh_days:g}"
        out.append(f"### Not ranked: older than {window} days\n")
        out.append(f"Quotes last observed more than {window} days before tonight (the bundled snapshot's: before "
                   f"its date, {min(night.run_date, SNAPSHOT_DATE).isoformat()}): listed, ranked nowhere.\n")
        out.append(table(stale, {
            "gpu": ("GPU", None), "pricing": ("pricing", None), "usd_per_gpu_hour": ("USD/GPU-h", fmt_usd),
            "provider": ("provider", None), "instance_type": ("instance", None),
            "observed_at": ("observed", str), "age_days": ("age (days)", str), "source": ("source", None)}))
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
