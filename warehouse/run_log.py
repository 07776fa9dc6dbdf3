"""One run_log row per run, one source_status row per source per run."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb

from warehouse.load import LoadResult, RunContext


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
    status = "failed" if error else ("partial" if failed else "success")
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
            error,
            run.run_id,
        ],
    )
    return summary
