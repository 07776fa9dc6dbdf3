"""The nightly flow: ingest -> validate -> recompute estimates -> publish the dated report."""

from __future__ import annotations

from datetime import UTC, date, datetime

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from flows.tasks import FetchOutcome, fetch_source, publish_report, write_warehouse
from flows.writer import new_run_id
from sources.registry import pick_live
from warehouse import settings


@flow(name="gpucalc-nightly", log_prints=True)
def nightly(
    run_date: date | None = None,
    offline: bool = False,
    data_dir: str | None = None,
    sources: list[str] | None = None,
) -> dict:
    """Fetch every reachable source (or none, offline), load, recompute and publish."""
    logger = get_run_logger()
    day = run_date or datetime.now(UTC).date()
    directory = settings.data_dir(data_dir)
    warehouse = settings.warehouse_path(directory)
    raw_dir = settings.raw_dir(directory)
    run_id = new_run_id(day)

    fetched: list[FetchOutcome] = []
    if not offline:
        names = pick_live(sources)  # unknown or file-only names stop the run before any fetch
        futures = {name: fetch_source.submit(name, day, str(raw_dir), run_id) for name in names}
        for name, future in futures.items():
            fetched.append(_outcome(name, future))
            if fetched[-1].status != "ok":
                logger.warning("source %s %s: %s", name, fetched[-1].status, fetched[-1].message)

    summary = write_warehouse(
        warehouse,
        str(raw_dir),
        run_id,
        day,
        "offline" if offline else "online",
        fetched,
        load_bundled_prices=offline,
    )
    path, markdown = publish_report(warehouse, str(settings.reports_dir(directory)), day)
    create_markdown_artifact(
        markdown=markdown, key="gpucalc-nightly-report", description=f"gpucalc report {day.isoformat()}"
    )
    print(f"run {run_id}: {summary['status']}, {summary['estimate_rows']} estimates, report at {path}")
    return {**summary, "report": path}


def _outcome(name: str, future) -> FetchOutcome:
    """What one fetch task came to, after its retries; a crash is a failed source, not a failed run."""
    future.wait()
    if future.state.is_completed():
        return future.result()
    error = future.state.result(raise_on_failure=False)
    message = getattr(error, "message", None) or str(error) or str(future.state.message or "fetch failed")
    return FetchOutcome(name, "failed", message)
