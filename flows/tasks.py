"""Prefect tasks: thin wrappers that call the plain functions in sources/, warehouse/, reports/.

Fetch tasks run in threads and only write raw payloads to disk; one writer task does all
DuckDB work (DuckDB allows one writing process and its connections are not thread-safe).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from flows import progress
from sources.kit import http, raw_store
from sources.kit.registry import spec_for
from sources.kit.spec import MissingKey, SourceError
from warehouse.loading.load import RunContext
from warehouse.loading.writer import SourceLoad, parse_kept, write_run
from warehouse.store.workspace import Workspace

log = logging.getLogger("gpucalc.fetch")


@dataclass
class FetchOutcome:
    source: str
    status: str  # ok | failed | skipped
    message: str = ""
    files: list[str] = field(default_factory=list)


# No task retries: the shared HTTP session retries each request that can succeed on a second
# try (429/5xx, read timeouts) and fails the rest at once; a second layer here would multiply
# the attempts and the minutes a night without network takes (docs/scale.md).
@task(cache_policy=NO_CACHE)
def fetch_source(name: str, day: date, raw_dir: str, run_id: str | None = None) -> FetchOutcome:
    """Fetch one live source and keep its payloads under data/raw/<source>/<date>/."""
    spec = spec_for(name)
    try:
        # `http.make_session` looked up at call time, so tests can serve recorded responses.
        payloads = spec.fetch(http.make_session(), day)
    except MissingKey as exc:
        return FetchOutcome(name, "skipped", exc.message)
    except SourceError as exc:  # one sentence for people; the whole chain for the log file
        log.warning("source %s failed: %s", name, exc.message, exc_info=True)
        return FetchOutcome(name, "failed", exc.message)
    files = [str(raw_store.save(p, Path(raw_dir), day, run_id).path) for p in payloads]
    return FetchOutcome(name, "ok", f"{len(files)} payloads", files)


@task(cache_policy=NO_CACHE)
def write_warehouse(
    warehouse: str,
    data_dir: str,
    run_id: str,
    run_date: date,
    mode: str,
    fetched: list[FetchOutcome],
    load_bundled_prices: bool | None,
) -> dict:
    """The single writer: reference, observations, estimates and the run log, in order.

    `warehouse` and `data_dir` are the flow's workspace, as plain values a worker elsewhere receives.
    """
    workspace = Workspace(Path(data_dir), warehouse)
    loads = []
    for outcome in fetched:
        if outcome.status == "ok":
            # Parse what was kept, not what is in memory: tonight's load and a later replay
            # of this day then read exactly the same bytes.
            loads.append(parse_kept(outcome.source, workspace.raw_dir, run_date))
        else:
            loads.append(SourceLoad(outcome.source, outcome.status, outcome.message))
    run = RunContext.new(run_id, run_date)
    return write_run(workspace, run, mode, loads, bundled_prices=load_bundled_prices, on_step=progress.stage)


@task(cache_policy=NO_CACHE)
def publish_report(
    warehouse: str, reports_dir: str, run_date: date, night_failed: bool = False
) -> tuple[str, str, list[dict], str | None]:
    """Render the dated report (pages, charts, HTML) and the history; returns (index.md path, the
    index as a Prefect artifact's markdown, the front page's tables as rows (per job and price
    basis), and the run id of the good report a failed night left in place, or None)."""
    from reports.render import write_report

    published = write_report(
        warehouse, Path(reports_dir), run_date, on_step=progress.stage, allow_missing=True, night_failed=night_failed
    )
    return published.path, published.artifact, published.per_basis, published.kept
