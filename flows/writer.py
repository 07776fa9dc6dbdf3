"""The single DuckDB writer: every path that changes the warehouse goes through `write_run`.

Plain functions, no Prefect: the nightly flow calls `write_run` from its one writer task, and
`gpucalc ingest` / `gpucalc replay` call it directly so they need no Prefect server. DuckDB
allows one writing process and its connections are not thread-safe, so the warehouse is
opened here, used from this thread only, and closed before returning. Parsing happens before
the connection opens, so the write lock is held only for the loads themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from sources import bundled, raw_store
from sources.base import Parsed
from sources.catalog import load_catalog
from sources.raw_store import Kept
from sources.registry import parse_payloads, spec_for
from warehouse import db
from warehouse.load import LoadResult, RunContext, load_benchmarks, load_prices, record_source_failure
from warehouse.observations import first_rejects, index_payloads, load_parsed, table_for
from warehouse.rebuild import rebuild_estimates
from warehouse.reference_load import load_reference
from warehouse.run_log import finish_run, record_source_status, start_run

SHOW_REJECTS = 5  # rejected rows per source echoed on the console; the rest are in rejected_row


def new_run_id(run_date: date) -> str:
    return f"{run_date.isoformat()}-{datetime.now(UTC).strftime('%H%M%S%f')}"


@dataclass
class SourceLoad:
    """One source's part of a run, ready for the writer."""

    source: str
    status: str  # ok | failed | skipped
    message: str = ""
    parsed: Parsed | None = None
    kept: list[Kept] = field(default_factory=list)  # payloads to index in raw_payload


def parse_kept(source: str, raw_dir: Path, day: date) -> SourceLoad:
    """Parse every payload kept for a source on a day; no payload parses -> failed."""
    kept = raw_store.kept_day(raw_dir, source, day)
    parsed, problems = parse_payloads(source, [raw_store.as_payload(k) for k in kept], day)
    # The payloads are indexed even when none parses: raw_payload records what was received.
    return SourceLoad(source, "ok" if parsed is not None else "failed", problems, parsed, kept)


def write_run(
    warehouse: str,
    data_dir: Path,
    run: RunContext,
    mode: str,
    loads: list[SourceLoad],
    *,
    bundled_prices: bool = False,
    count_baseline: bool = True,
) -> dict:
    """Reference + bundled benchmarks, each source's load, estimates and the run log, in order.

    `count_baseline=False` keeps the bundled loads out of the run's row counts (ingest and
    replay report only what they were asked to load). Returns finish_run's summary plus a
    `sources` list: status, counts, message and the first rejected rows per source.
    """
    con = db.connect(warehouse)
    try:
        start_run(con, run, mode)
        baseline = _load_baseline(con, run, bundled_prices)
        results = list(baseline) if count_baseline else []
        statuses = []
        for item in loads:
            table = table_for(spec_for(item.source).kind)
            index_payloads(con, item.kept, data_dir, run)
            if item.status == "skipped":
                statuses.append((item.source, "skipped", 0, 0, item.message))
            elif item.parsed is None:
                # Fetch or parse failed: say why, and leave the source's stored rows as they are.
                record_source_failure(con, item.source, table, item.message, run)
                statuses.append((item.source, "failed", 0, 0, item.message))
            else:
                if item.message:  # some payloads of the source could not be read: say which
                    record_source_failure(con, item.source, table, item.message, run)
                result = load_parsed(con, item.source, spec_for(item.source).kind, item.parsed, run)
                results.append(result)
                statuses.append((item.source, "ok", result.loaded, result.rejected, item.message))
        record_source_status(con, run, statuses)
        counts = rebuild_estimates(con, run.run_id, run.run_date)
        summary = finish_run(con, run, results, counts, statuses)
        payloads = {item.source: len(item.kept) for item in loads}
        summary["sources"] = [_status(con, run, s) | {"payloads": payloads.get(s[0], 0)} for s in statuses]
    except Exception as exc:
        finish_run(con, run, [], {}, [], error=str(exc))
        raise
    finally:
        con.close()
    return summary


def record_unusable(warehouse: str, run: RunContext, mode: str, source: str, message: str) -> dict:
    """A payload nothing could be read from: one rejected_row and a failed run_log row, nothing else.

    No source_status row: a bad local file says nothing about whether the live source works,
    so it must not mark the source failed in tonight's report.
    """
    con = db.connect(warehouse)
    try:
        start_run(con, run, mode)
        record_source_failure(con, source, table_for(spec_for(source).kind), message, run)
        summary = finish_run(con, run, [], {}, [], error=message)
    finally:
        con.close()
    return summary


def _load_baseline(con, run: RunContext, bundled_prices: bool) -> list[LoadResult]:
    # The catalog (and its gpu_alias) must be current before any source resolves GPU names;
    # the bundled benchmarks keep calibration points even when no benchmark source ran.
    load_reference(con, load_catalog(), run)
    results = [load_benchmarks(con, "bundled_mlperf_and_runs", bundled.load_benchmark_results(), run)]
    if bundled_prices:
        results.append(load_prices(con, "bundled_snapshot", bundled.load_price_snapshot(), run))
    return results


def _status(con, run: RunContext, status: tuple[str, str, int, int, str]) -> dict:
    source, state, loaded, rejected, message = status
    examples = first_rejects(con, run.run_id, source, SHOW_REJECTS) if state != "skipped" else []
    return {
        "source": source,
        "status": state,
        "loaded": loaded,
        "rejected": rejected,
        "message": message,
        "examples": examples,
    }
