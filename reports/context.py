"""Everything one night's pages are built from, read once from its snapshot."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from reports import queries
from reports.changes import Changes, since_previous
from reports.chart_png import Chart
from reports.night import Night


@dataclass
class NightData:
    night: Night
    workloads: pl.DataFrame
    options: pl.DataFrame  # every option of every workload
    known_prices: pl.DataFrame
    changes: Changes
    sources: pl.DataFrame
    decisions: pl.DataFrame = field(default_factory=pl.DataFrame)  # every job's choices, one basis each
    front: pl.DataFrame = field(default_factory=pl.DataFrame)  # the decisions as the front tables say them
    front_before: pl.DataFrame = field(default_factory=pl.DataFrame)  # the previous night's decisions
    platforms: pl.DataFrame = field(default_factory=pl.DataFrame)  # each platform's shape, for fleets in words
    fresh_days: float = 30.0  # the night's price freshness window (assumption price_fresh_days)
    curves: pl.DataFrame = field(default_factory=pl.DataFrame)  # the night's interactivity curves
    charts: dict[str, Chart] = field(default_factory=dict)  # by file name

    def options_of(self, workload_id: str) -> pl.DataFrame:
        return self.options.filter(pl.col("workload_id") == workload_id)

    def curve_of(self, workload_id: str) -> pl.DataFrame:
        return _of(self.curves, workload_id)

    def decisions_of(self, workload_id: str) -> pl.DataFrame:
        return _of(self.decisions, workload_id)

    def front_of(self, workload_id: str) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The job's front-table rows tonight and the previous night's decision rows of it."""
        return _of(self.front, workload_id), _of(self.front_before, workload_id)


def _of(frame: pl.DataFrame, workload_id: str) -> pl.DataFrame:
    return frame.filter(pl.col("workload_id") == workload_id) if frame.height else frame


def load(con, night: Night) -> NightData:
    changes = since_previous(con, night)
    return NightData(
        night=night,
        workloads=queries.workloads(con, night),
        options=queries.options(con, night),
        known_prices=queries.known_prices(con, night),
        changes=changes,
        sources=queries.live_sources(con, night),
        decisions=queries.decisions(con, night),
        front=queries.front_rows(con, night),
        front_before=queries.decisions(con, changes.previous) if changes.previous else pl.DataFrame(),
        platforms=queries.platforms(con, night),
        fresh_days=queries.price_fresh_days(con, night),
        curves=queries.curves(con, night),
    )
