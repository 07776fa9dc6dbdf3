"""Which prices ranked tonight, in one line near the top of the front page: live sources (which),
quotes you ingested, or the bundled price snapshot (its date and age), and how many quotes were
too old to rank.

Reads the quotes the night knew (queries.known_prices) with the staleness rule of
warehouse/models/070_latest_price.sql (prices_page.aged), so the line and the prices page agree.
"""

from __future__ import annotations

import polars as pl

from reports.markdown import Md, escape, page_link
from reports.night import Night
from reports.prices_page import FRESH_DAYS, aged
from sources.bundled import PRICE_SOURCE, SNAPSHOT_DATE
from warehouse.loading.observations import live_price_sources


def prices_line(known: pl.DataFrame, night: Night, fresh_days: float = FRESH_DAYS) -> Md:
    """One markdown line: the origins of the quotes that ranked, then the stale ones left out."""
    latest = aged(known, night, fresh_days)
    fresh = latest.filter(~pl.col("stale"))
    live = fresh.filter(pl.col("source").is_in(live_price_sources()))
    snapshot = fresh.filter(pl.col("source") == PRICE_SOURCE)
    yours = fresh.filter(~pl.col("source").is_in([*live_price_sources(), PRICE_SOURCE]))
    parts = []
    if live.height:
        parts.append(f"live from {_names(live)} ({_quotes(live.height)}, observed {_dates(live)})")
    if yours.height:
        parts.append(f"quotes you ingested ({_names(yours)}: {_quotes(yours.height)}, observed {_dates(yours)})")
    if snapshot.height:
        day = min(night.run_date, SNAPSHOT_DATE)
        age = (night.run_date - day).days
        parts.append(f"the bundled price snapshot of {day.isoformat()} ({age} day{'s' if age != 1 else ''} old; "
                     f"{_quotes(snapshot.height)})")
    said = "; ".join(parts) or "none: no quote was fresh enough"
    if night.mode == "offline":
        said += ", an offline night (no live fetch)"
    elif night.sources_failed:
        said += f"; the live fetch failed tonight for {night.sources_failed.replace(',', ', ')}"
    stale = latest.height - fresh.height
    left_out = (f"{escape(_quotes(stale))} older than {fresh_days:g} days left out (listed on "
                f"{page_link('prices', 'prices.md')})" if stale else f"No quote was older than {fresh_days:g} days")
    return Md(f"**Prices ranked tonight:** {escape(said)}. {left_out}.\n")


def _names(frame: pl.DataFrame) -> str:
    return ", ".join(sorted(frame["source"].unique().to_list()))


def _quotes(n: int) -> str:
    return f"{n:,} quote{'s' if n != 1 else ''}"


def _dates(frame: pl.DataFrame) -> str:
    first, last = frame["observed_at"].min(), frame["observed_at"].max()
    return first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"
