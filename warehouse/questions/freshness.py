"""Which prices ranked on the warehouse's newest night, in words: what `gpucalc sources` says first.

Three origins, as `latest_quote` (warehouse/models/070_latest_price.sql) sees them: the live
sources, your own files (`gpucalc ingest`), and the bundled price snapshot, which prices every
provider no live source has priced; per origin the quotes that ranked and those too old to
(`price_fresh_days`: listed in `stale_price`, ranked nowhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import duckdb

from sources import bundled
from warehouse.questions.plain_text import fmt_count
from warehouse.store.sql_text import sql_text


@dataclass(frozen=True)
class Ranked:
    """The quotes one source gave the night: ranked, stale, and the newest one's date."""

    source: str
    ranked: int
    stale: int
    newest: date


@dataclass(frozen=True)
class Night:
    """What ranked on the warehouse's newest night."""

    night: date
    snapshot_date: date
    fresh_days: float | None  # the freshness window (assumption price_fresh_days), if the warehouse has one
    by_source: dict[str, Ranked]


def ranked_tonight(con: duckdb.DuckDBPyConnection) -> Night | None:
    """The newest night's prices by source, or None before any night was built."""
    context = con.execute("select run_date, snapshot_date from run_context").fetchone()
    if context is None:
        return None
    window = con.execute("select max(value) from assumption where name = 'price_fresh_days'").fetchone()[0]
    rows = con.execute(sql_text("warehouse.questions", "ranked_prices.sql")).fetchall()
    return Night(context[0], context[1] or bundled.SNAPSHOT_DATE, window,
                 {row[0]: Ranked(*row) for row in rows})


def lines(night: Night, live: list[str], files: list[str], fetched: dict[str, str]) -> list[str]:
    """The night's prices in words: each live price source (`fetched`: when, in words), your
    files, then the bundled snapshot with its age."""
    said = [f"prices ranked on the night of {night.night.isoformat()} (the warehouse's newest):"]
    for name in live:
        if name in night.by_source:
            said.append(f"    live {name}: {_counts(night.by_source[name])}; last fetch {fetched.get(name, 'never')}")
    if not any(name in night.by_source for name in live):
        said.append("    live sources: none fetched by then (`gpucalc run` without --offline fetches them)")
    yours = [name for name in files if name in night.by_source]
    for name in yours:
        said.append(f"    your {name}: {_counts(night.by_source[name])}")
    if not yours:
        said.append("    your quotes: none (`gpucalc ingest quotes --file PATH` adds them)")
    said.append("    " + snapshot_line(night))
    if night.fresh_days is not None:
        said.append(f"    a stale quote was observed more than {night.fresh_days:g} days before the night (a "
                    "snapshot quote: before the snapshot's date); listed in stale_price, ranked nowhere")
    return said


def snapshot_line(night: Night) -> str:
    """'bundled snapshot of 2026-11-01 (35 days old at the night of 2026-12-06): 126 quotes ranked, 7 stale'."""
    snapshot = night.snapshot_date.isoformat()
    age = (night.night - night.snapshot_date).days
    when = (f"{fmt_count(age, 'day')} old at the night of {night.night.isoformat()}" if age >= 0
            else f"after the night of {night.night.isoformat()}: only its quotes observed by then count")
    counts = night.by_source.get(bundled.PRICE_SOURCE)
    return f"bundled snapshot of {snapshot} ({when}): " + (_counts(counts) if counts else "no quotes")


def _counts(ranked: Ranked) -> str:
    return f"{fmt_count(ranked.ranked, 'quote')} ranked, {ranked.stale} stale"
