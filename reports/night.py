"""Which night a report describes, and the night it is compared with.

A night is a nightly run (mode online or offline) that kept a report snapshot (`night_run`,
warehouse/models/095_night_*.sql). Ingests, replays and backfills rebuild the estimates but
keep no snapshot, so they can never pose as "last night"; the previous night of D is the
latest snapshot dated before D.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from warehouse.store.sql_text import sql_text


@dataclass(frozen=True)
class Night:
    run_date: date
    run_id: str
    mode: str | None = None
    status: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    duration_s: float | None = None
    price_rows: int | None = None
    benchmark_rows: int | None = None
    rejected_rows: int | None = None
    estimate_rows: int | None = None
    sources_failed: str | None = None


def has_snapshots(con) -> bool:
    return bool(con.execute(
        "select count(*) from duckdb_tables() where table_name = 'night_run' and schema_name = 'main'"
    ).fetchone()[0])


def find(con, day: date) -> Night | None:
    """The night whose report is dated `day`, if that night kept a snapshot."""
    if not has_snapshots(con):
        return None
    return _one(con, " where n.run_date = ? order by n.run_id desc limit 1", [day])


def previous_night(con, night: Night) -> Night | None:
    """The latest night before this one (by date): what "since the previous night" compares with."""
    return _one(con, " where n.run_date < ? order by n.run_date desc, n.run_id desc limit 1", [night.run_date])


def newest(con) -> Night | None:
    if not has_snapshots(con):
        return None
    return _one(con, " order by n.run_date desc, n.run_id desc limit 1", [])


def all_dates(con) -> list[date]:
    if not has_snapshots(con):
        return []
    return [row[0] for row in con.execute("select distinct run_date from night_run order by 1 desc").fetchall()]


def _one(con, pick: str, params: list) -> Night | None:
    """The first snapshot night in the order `pick` (where / order by / limit) gives."""
    frame = con.execute(sql_text("reports", "snapshot_nights.sql") + pick, params).pl()
    return Night(**frame.row(0, named=True)) if frame.height else None
