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

from flows.writer import SourceLoad, parse_kept, write_run
from sources import http, raw_store
from sources.base import MissingKey
from sources.registry import spec_for
from warehouse.load import RunContext


@dataclass
class FetchOutcome:
    source: str
    status: str  # ok | failed | skipped
    message: str = ""
    files: list[str] = field(default_factory=list)


@task(retries=2, retry_delay_seconds=[5, 30], cache_policy=NO_CACHE)
def fetch_source(name: str, day: date, raw_dir: str, run_id: str | None = None) -> FetchOutcome:
    """Fetch one live source and keep its payloads under data/raw/<source>/<date>/."""
    spec = spec_for(name)
    try:
        # `http.make_session` looked up at call time, so tests can serve recorded responses.
        payloads = spec.fetch(http.make_session(), day)
    except MissingKey as exc:
        return FetchOutcome(name, "skipped", exc.message)
    # Any other SourceError propagates: Prefect retries the task, then the flow records it as failed.
    files = [str(raw_store.save(p, Path(raw_dir), day, run_id).path) for p in payloads]
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
    loads = []
    for outcome in fetched:
        if outcome.status == "ok":
            # Parse what was kept, not what is in memory: tonight's load and a later replay
            # of this day then read exactly the same bytes.
            loads.append(parse_kept(outcome.source, Path(raw_dir), run_date))
        else:
            loads.append(SourceLoad(outcome.source, outcome.status, outcome.message))
    run = RunContext.new(run_id, run_date)
    return write_run(
        warehouse, Path(raw_dir).parent, run, mode, loads, bundled_prices=load_bundled_prices
    )


@task(cache_policy=NO_CACHE)
def publish_report(warehouse: str, reports_dir: str, run_date: date) -> tuple[str, str]:
    """Render the dated markdown report; returns (path, markdown)."""
    from reports.render import write_report

    return write_report(warehouse, Path(reports_dir), run_date)
