"""The nightly flow: ingest -> validate -> recompute estimates -> publish the dated report."""

from __future__ import annotations

import logging
from datetime import date

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.states import Failed

from flows import console, progress
from flows.log_file import run_log_file
from flows.tasks import FetchOutcome, fetch_source, publish_report, write_warehouse
from sources.kit import clock
from sources.kit.registry import pick_live
from warehouse.loading.writer import new_run_id
from warehouse.store.workspace import Workspace


@flow(name="gpucalc-nightly", log_prints=True)
def nightly(
    run_date: date | None = None,
    offline: bool = False,
    data_dir: str | None = None,
    sources: list[str] | None = None,
    warehouse: str | None = None,
) -> dict:
    """Fetch every reachable source (or none, offline), load, recompute and publish.

    Returns the run's summary; a night whose status is failed returns it inside a Failed state, so
    the flow run ends Failed (an automation on Failed fires) and a caller that wants the summary
    calls with `return_state=True` and reads `state.result(raise_on_failure=False)`. A failed night
    never replaces the report a good night of the same day published.

    `data_dir` and `warehouse` override GPUCALC_DATA_DIR and GPUCALC_WAREHOUSE (a DuckDB file,
    ducklake:<catalog> or md:<db>); plain strings, as Prefect keeps a flow's parameters.
    """
    logger = get_run_logger()
    today = clock.today()
    day = run_date or today
    if day > today:  # observations "made" in the future would stay fresh for years
        raise ValueError(f"run date {day.isoformat()} is in the future (today is {today.isoformat()} UTC)")
    workspace = Workspace.resolve(data_dir, warehouse)
    run_id = new_run_id(day)

    shown = workspace.where.shown  # the location without its password or token
    with run_log_file(workspace, run_id) as log_path:
        story.info("run %s (%s) for %s into %s", run_id, "offline" if offline else "online", day, shown)
        fetched: list[FetchOutcome] = []
        if not offline:
            names = pick_live(sources)  # unknown or file-only names stop the run before any fetch
            futures = {name: fetch_source.submit(name, day, str(workspace.raw_dir), run_id) for name in names}
            progress.stage(f"fetching {len(futures)} live sources")
            for name, future in futures.items():
                fetched.append(_outcome(name, future))
                story.info("source %s: %s %s", name, fetched[-1].status, fetched[-1].message or "")
                progress.stage(f"fetched {name} ({len(fetched)}/{len(futures)}: {fetched[-1].status})")
                if fetched[-1].status != "ok":  # one line per source that did not load
                    logger.warning("source %s %s: %s", name, fetched[-1].status, fetched[-1].message)
        summary = write_warehouse(
            workspace.warehouse, str(workspace.data_dir), run_id, day, "offline" if offline else "online", fetched,
            load_bundled_prices=True if offline else None,
        )
        story.info("warehouse %s: %s", shown, {k: v for k, v in summary.items() if not isinstance(v, list | dict)})
        with console.after_the_write("writing its report"):  # a failure now leaves the night in the warehouse
            path, markdown, per_basis, kept = publish_report(
                workspace.warehouse, str(workspace.reports_dir), day, night_failed=summary["status"] == "failed"
            )
        story.info("report %s", path)
        if kept:
            from reports.render import kept_sentence  # the renderer's imports only once a report is written

            kept = kept_sentence(kept, day)
            story.warning("%s", kept)
    create_markdown_artifact(
        markdown=markdown, key="gpucalc-nightly-report", description=f"gpucalc report {day.isoformat()}"
    )
    if per_basis:  # keys: lowercase letters, digits and dashes, the same every night
        create_table_artifact(
            table=per_basis, key="gpucalc-cheapest-per-basis",
            description=f"each job's cheapest option per price basis and its change since the night before, "
                        f"{day.isoformat()}",
        )
    if kept:
        print(kept)
    print(f"run {run_id}: {summary['status']}, {summary['estimate_rows']} estimates, report at {path}")
    result = {**summary, "report": path, "log": str(log_path), "kept": kept}  # kept: the sentence
    if summary["status"] == "failed":  # exit 1 for gpucalc: the flow run ends Failed too
        failed = summary.get("sources_failed") or []
        why = f"every live source failed ({', '.join(failed)})" if failed else f"see its log {log_path}"
        return Failed(message=f"run {run_id} failed: {why}", data=result)
    return result


story = logging.getLogger("gpucalc.run")


def _outcome(name: str, future) -> FetchOutcome:
    """What one fetch task came to; a crash is a failed source (one line), not a failed run."""
    future.wait()
    if future.state.is_completed():
        return future.result()
    error = future.state.result(raise_on_failure=False)
    logging.getLogger("gpucalc.fetch").error("source %s crashed", name, exc_info=error)
    first_line = (str(error) or "fetch failed").strip().splitlines()[0][:200]
    return FetchOutcome(name, "failed", f"crashed ({type(error).__name__}: {first_line}); see the run's log file")
