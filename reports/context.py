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
    charts: dict[str, Chart] = field(default_factory=dict)  # by file name

    def options_of(self, workload_id: str) -> pl.DataFrame:
        return self.options.filter(pl.col("workload_id") == workload_id)

    def decisions_of(self, workload_id: str) -> pl.DataFrame:
        if self.decisions.height == 0:
            return self.decisions
        return self.decisions.filter(pl.col("workload_id") == workload_id)


def load(con, night: Night) -> NightData:
    return NightData(
        night=night,
        workloads=queries.workloads(con, night),
        options=queries.options(con, night),
        known_prices=queries.known_prices(con, night),
        changes=since_previous(con, night),
        sources=queries.live_sources(con, night),
        decisions=queries.decisions(con, night),
    )
