"""One run_log row per run, one source_status row per source per run."""

from __future__ import annotations

from datetime import UTC, date, datetime

import duckdb

from warehouse.loading.load import LoadResult, RunContext
from warehouse.store.location import redact


def start_run(con: duckdb.DuckDBPyConnection, run: RunContext, mode: str) -> None:
    con.execute(
        "insert into run_log (run_id, run_date, mode, started_at, status) values (?, ?, ?, ?, 'running')",
        [run.run_id, run.run_date, mode, run.extracted_at],
    )


def record_source_status(
    con: duckdb.DuckDBPyConnection, run: RunContext, statuses: list[tuple[str, str, int, int, str]]
) -> None:
    now = datetime.now(UTC).replace(tzinfo=None)
    con.execute("delete from source_status where run_id = ?", [run.run_id])
    for source, status, loaded, rejected, message in statuses:
        con.execute(
            "insert into source_status values (?, ?, ?, ?, ?, ?, ?, ?)",
            [run.run_id, run.run_date, source, status, loaded, rejected, message, now],
        )


def finish_run(
    con: duckdb.DuckDBPyConnection,
    run: RunContext,
    results: list[LoadResult],
    counts: dict[str, int],
    statuses: list[tuple[str, str, int, int, str]],
    error: str | None = None,
) -> dict:
    finished = datetime.now(UTC).replace(tzinfo=None)
    failed = [s[0] for s in statuses if s[1] == "failed"]
    ok = [s[0] for s in statuses if s[1] == "ok"]
    # A night where every source that was tried failed has nothing new to show: failed, not
    # partial, even though the bundled data still loaded and the estimates were rebuilt.
    status = "failed" if error or (failed and not ok) else ("partial" if failed else "success")
    summary = {
        "run_id": run.run_id,
        "run_date": run.run_date.isoformat(),
        "status": status,
        "price_rows": sum(r.loaded for r in results if r.table == "price_quote"),
        "benchmark_rows": sum(r.loaded for r in results if r.table == "benchmark_result"),
        "rejected_rows": sum(r.rejected for r in results),
        "estimate_rows": counts.get("estimate", 0),
        "sources_ok": ok,
        "sources_failed": failed,
        "duration_s": (finished - run.extracted_at).total_seconds(),
    }
    con.execute(
        """update run_log set finished_at = ?, status = ?, price_rows = ?, benchmark_rows = ?,
               rejected_rows = ?, estimate_rows = ?, sources_ok = ?, sources_failed = ?,
               duration_s = ?, message = ?
           where run_id = ?""",
        [
            finished,
            status,
            summary["price_rows"],
            summary["benchmark_rows"],
            summary["rejected_rows"],
            summary["estimate_rows"],
            ",".join(ok),
            ",".join(failed),
            summary["duration_s"],
            redact(error) if error else error,  # every reader and export sees it
            run.run_id,
        ],
    )
    return summary


def as_of_date(con: duckdb.DuckDBPyConnection, run_date: date) -> date:
    """The warehouse's current date after this run: the latest date any good run wrote.

    "Tonight" is the newest night the warehouse has: a backfill or replay of an older day
    writes that day's observations without moving the estimates back to it.
    """
    # any run that rebuilt the estimates counts, a night whose every source failed included
    latest = con.execute("select max(run_date) from run_log where estimate_rows > 0").fetchone()[0]
    return max(run_date, latest) if latest else run_date


def record_interrupted(con: duckdb.DuckDBPyConnection, holder) -> None:
    """A run that held the write lock and vanished (killed, crashed): say so in run_log."""
    con.execute("delete from run_log where run_id = ?", [holder.run_id])
    con.execute(
        """insert into run_log (run_id, run_date, mode, started_at, finished_at, status, message)
           values (?, ?, ?, ?, ?, 'failed', ?)""",
        [
            holder.run_id,
            holder.run_date,
            holder.mode,
            holder.started_at,
            datetime.now(UTC).replace(tzinfo=None),
            f"interrupted: process {holder.pid} stopped before finishing (killed or crashed); "
            "nothing it wrote was kept",
        ],
    )
