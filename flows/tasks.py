"""Prefect tasks: thin wrappers that call the plain functions in sources/, warehouse/, reports/.

Fetch tasks run in threads and only write raw payloads to disk; one writer task does all
DuckDB work (DuckDB allows one writing process and its connections are not thread-safe).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from sources import bundled, raw_store
from sources.base import MissingKey
from sources.catalog import load_catalog
from sources.http import make_session
from sources.registry import parse_kept_day, spec_for
from warehouse import db
from warehouse.load import RunContext, load_benchmarks, load_prices, record_source_failure
from warehouse.reference_load import load_reference
from warehouse.run_log import finish_run, record_source_status, start_run


@dataclass
class FetchOutcome:
    source: str
    status: str  # ok | failed | skipped
    message: str = ""
    files: list[str] = field(default_factory=list)


@task(retries=2, retry_delay_seconds=[5, 30], cache_policy=NO_CACHE)
def fetch_source(name: str, day: date, raw_dir: str) -> FetchOutcome:
    """Fetch one live source and keep its payloads under data/raw/<source>/<date>/."""
    spec = spec_for(name)
    try:
        payloads = spec.fetch(make_session(), day)
    except MissingKey as exc:
        return FetchOutcome(name, "skipped", exc.message)
    files = [str(raw_store.save(p, Path(raw_dir), day).path) for p in payloads]
    return FetchOutcome(name, "ok", f"{len(files)} payloads", files)


@task(cache_policy=NO_CACHE)
def write_warehouse(
    warehouse: str,
    raw_dir: str,
    run_id: str,
    run_date: date,
    mode: str,
    fetched: list[FetchOutcome],
    load_bundled_prices: bool,
) -> dict:
    """The single writer: reference, observations, estimates and the run log, in order."""
    from warehouse.rebuild import rebuild_estimates

    run = RunContext.new(run_id, run_date)
    con = db.connect(warehouse)
    try:
        start_run(con, run, mode)
        load_reference(con, load_catalog(), run)
        results = [load_benchmarks(con, "bundled_mlperf_and_runs", bundled.load_benchmark_results(), run)]
        if load_bundled_prices:
            results.append(load_prices(con, "bundled_snapshot", bundled.load_price_snapshot(), run))
        statuses = []
        for outcome in fetched:
            if outcome.status != "ok":
                statuses.append((outcome.source, outcome.status, 0, 0, outcome.message))
                if outcome.status == "failed":
                    record_source_failure(con, outcome.source, _table_for(outcome.source), outcome.message, run)
                continue
            parsed, problems = parse_kept_day(outcome.source, Path(raw_dir), run_date)
            if parsed is None:
                record_source_failure(con, outcome.source, _table_for(outcome.source), problems, run)
                statuses.append((outcome.source, "failed", 0, 0, problems))
                continue
            loader = load_prices if _table_for(outcome.source) == "price_quote" else load_benchmarks
            result = loader(con, outcome.source, parsed, run)
            results.append(result)
            statuses.append((outcome.source, "ok", result.loaded, result.rejected, problems))
        record_source_status(con, run, statuses)
        counts = rebuild_estimates(con, run_id, run_date)
        summary = finish_run(con, run, results, counts, statuses)
    except Exception as exc:
        finish_run(con, run, [], {}, [], error=str(exc))
        raise
    finally:
        con.close()
    return summary


def _table_for(source: str) -> str:
    return "price_quote" if spec_for(source).kind == "prices" else "benchmark_result"


@task(cache_policy=NO_CACHE)
def publish_report(warehouse: str, reports_dir: str, run_date: date) -> tuple[str, str]:
    """Render the dated markdown report; returns (path, markdown)."""
    from reports.render import write_report

    return write_report(warehouse, Path(reports_dir), run_date)
