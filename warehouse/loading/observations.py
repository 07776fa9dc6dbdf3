"""One source's observations into the warehouse, the raw payload index, and what `gpucalc
sources` reports about each source. Shared by the nightly writer, `ingest` and `replay`, so
the three paths load a source the same way.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import duckdb
import polars as pl

from sources import bundled
from sources.kit.raw_store import Kept
from sources.kit.registry import all_specs
from sources.kit.spec import Parsed
from warehouse.loading.load import LoadResult, RunContext, load_benchmarks, load_prices
from warehouse.store.db import transaction
from warehouse.store.sql_text import sql_text

# A source with no successful load for more than this many days is stale: its rows are
# still used, but the report and `gpucalc sources` say they are old.
STALE_AFTER_DAYS = 2


def table_for(kind: str) -> str:
    return "price_quote" if kind == "prices" else "benchmark_result"


def load_parsed(
    con: duckdb.DuckDBPyConnection, source: str, kind: str, parsed: Parsed, run: RunContext, window: list[str]
) -> LoadResult:
    """Validate and merge one source's parsed rows into the table its kind feeds."""
    loader = load_prices if kind == "prices" else load_benchmarks
    return loader(con, source, parsed, run, window)


def live_price_sources() -> list[str]:
    return [name for name, spec in all_specs().items() if spec.live and spec.kind == "prices"]


def live_priced_providers(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Providers a live price source has given quotes for: the bundled snapshot's quotes of
    those providers stand down, whatever kind of run comes next (your own quotes do not count)."""
    return [row[0] for row in con.execute(
        "select distinct provider from price_quote where source in (select unnest(?::varchar[])) order by 1",
        [live_price_sources()],
    ).fetchall()]


def prices_ranked(con: duckdb.DuckDBPyConnection, day: date) -> str:
    """Which prices the estimates as of `day` rank, by origin, in one line for the run's summary
    and log: 'prices: bundled snapshot of 2026-11-01 for azure, gcp; live for aws; your files for acme'."""
    by_origin = dict(con.execute(
        """select case when payload = ? then 'snapshot'
                       when source in (select unnest(?::varchar[])) then 'live' else 'files' end as origin,
                  string_agg(distinct provider, ', ' order by provider)
           from price_quote where observed_at <= ? group by origin""",
        [bundled.PRICE_PAYLOAD, live_price_sources(), day],
    ).fetchall())
    parts = [f"{label} for {by_origin[origin]}" for origin, label in (
        ("snapshot", f"bundled snapshot of {bundled.SNAPSHOT_DATE.isoformat()}"),
        ("live", "live"),
        ("files", "your files"),
    ) if origin in by_origin]
    said = "prices: " + ("; ".join(parts) or f"none observed by {day.isoformat()}")
    if bundled.SNAPSHOT_DATE > day:  # a night dated before the snapshot: history, not an empty market
        said += f" (the bundled snapshot of {bundled.SNAPSHOT_DATE.isoformat()} is after {day.isoformat()})"
    return said


def index_payloads(con: duckdb.DuckDBPyConnection, kept: list[Kept], data_dir: Path, run: RunContext) -> int:
    """One raw_payload row per kept payload; re-indexing the same file replaces its row."""
    if not kept:
        return 0
    frame = pl.DataFrame(
        {
            "source": [k.source for k in kept],
            "run_date": [k.day for k in kept],
            "name": [k.name for k in kept],
            "path": [_relative(k.path, data_dir) for k in kept],
            "url": [k.url for k in kept],
            "sha256": [k.sha256 for k in kept],
            "bytes": [k.bytes for k in kept],
            "fetched_at": [k.fetched_at for k in kept],
            # the run that fetched it (from the sidecar), else the run indexing it now
            "run_id": [k.run_id or run.run_id for k in kept],
        },
        schema_overrides={"bytes": pl.Int64, "fetched_at": pl.Datetime("us")},
    )
    with transaction(con):
        con.register("kept_payloads", frame.to_arrow())
        con.execute(
            """delete from raw_payload r using kept_payloads k
               where r.source = k.source and r.run_date = k.run_date and r.name = k.name"""
        )
        con.execute("insert into raw_payload by name select * from kept_payloads")
        con.unregister("kept_payloads")
    return frame.height


def first_rejects(con: duckdb.DuckDBPyConnection, run_id: str, source: str, limit: int = 5) -> list[dict]:
    """The first problems a run rejected for a source, in payload order, to show on the console.

    Identical (row, rule, detail) lines collapse into one with a count: a catalog row yields
    an on-demand and a spot quote, and both fail on the same unknown GPU name.
    """
    return (
        con.execute(
            """select source_row, rule, detail, count(*) as times from rejected_row
               where run_id = ? and source = ? group by all
               order by source_row nulls first, rule, detail limit ?""",
            [run_id, source, limit],
        )
        .pl()
        .to_dicts()
    )


def source_overview(con: duckdb.DuckDBPyConnection, today: date) -> pl.DataFrame:
    """Per source: last fetch, last successful load, its row counts, the latest status, staleness."""
    stale_before = today - timedelta(days=STALE_AFTER_DAYS)
    return con.execute(
        sql_text("warehouse.loading", "source_overview.sql"),
        [stale_before],
    ).pl()


def _relative(path: Path, data_dir: Path) -> str:
    try:
        return path.resolve().relative_to(data_dir.resolve()).as_posix()
    except ValueError:  # kept outside the data directory (GPUCALC_WAREHOUSE elsewhere): keep it whole
        return str(path)
