"""The single DuckDB writer: every path that changes the warehouse goes through `write_run`.

Plain functions, no Prefect: the nightly flow calls `write_run` from its one writer task, and
`gpucalc ingest` / `gpucalc replay` call it directly so they need no Prefect server. The
write happens in a `warehouse.store.write_session` (one writer at a time; the live warehouse is
replaced atomically, so readers never block it and a failed or killed run changes nothing).
`ingest` and `replay` hand it a function that parses their kept payloads, called once the turn
is held: what they load is then what raw/ holds when they write, whoever kept a payload before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from sources import bundled
from sources.bundled.catalog import load_catalog_with_yours
from sources.kit import raw_store
from sources.kit.raw_store import Kept
from sources.kit.registry import parse_payloads, spec_for
from sources.kit.spec import Parsed
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading import baseline, night_curve
from warehouse.loading.load import (
    LoadResult,
    RunContext,
    load_benchmarks,
    load_prices,
    record_source_failure,
    remove_providers,
)
from warehouse.loading.observations import (
    first_rejects,
    index_payloads,
    live_priced_providers,
    load_parsed,
    prices_ranked,
    table_for,
)
from warehouse.loading.reference_load import load_reference
from warehouse.loading.run_log import as_of_date, finish_run, record_interrupted, record_source_status, start_run
from warehouse.store import settings
from warehouse.store.location import UnreadableWarehouse
from warehouse.store.workspace import Workspace
from warehouse.store.write_session import Holder, WarehouseBusy, Writer, journal_run, turn_taken, writing

SHOW_REJECTS = 5  # rejected rows per source echoed on the console; the rest are in rejected_row
log = logging.getLogger(__name__)


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
    window: list[str] = field(default_factory=list)  # payload ids whose rows this load replaces
    problems: list[tuple[str, str]] = field(default_factory=list)  # (payload id, why unreadable)


@dataclass(frozen=True)
class Unusable:
    """A payload nothing could be read from: the run records one rejected_row and fails."""

    source: str
    message: str


# What a writer loads: its sources' loads, or, for an ingest of a file nothing could be read from, why.
Prepared = list[SourceLoad] | Unusable


def parse_kept(source: str, raw_dir: Path, day: date) -> SourceLoad:
    """Parse every payload kept for a source on a day; no payload parses -> failed."""
    limit = spec_for(source).max_bytes
    kept = raw_store.kept_day(raw_dir, source, day, limit)
    too_big = raw_store.oversized(raw_dir, source, day, limit)
    checked = [(k, k.changed_since_kept()) for k in kept]
    intact = [k for k, why in checked if why is None]
    # a payload over the size limit, or whose bytes are no longer those kept (evidence changed
    # after the fact), is its own problem, like a payload that does not parse (the others load)
    problems = [(raw_store.payload_id(source, day, name),
                 f"{name}: {size:,} bytes is over the {limit:,}-byte limit for {source} payloads; not read")
                for name, size in too_big]
    problems += [(raw_store.payload_id(source, day, k.name), why) for k, why in checked if why is not None]
    nothing_kept = not (kept or too_big)
    result = parse_payloads(source, [raw_store.as_payload(k) for k in intact], day) if intact or nothing_kept else None
    parsed, window = (result.parsed, result.window) if result else (None, [])
    problems += result.problems if result else []
    message = "; ".join(why for _, why in problems)
    status = "ok" if parsed is not None else "failed"
    # The payloads are indexed even when none parses: raw_payload records what was received.
    return SourceLoad(source, status, message, parsed, kept, window, problems)


def write_run(
    workspace: Workspace,
    run: RunContext,
    mode: str,
    loads: Prepared | Callable[[], Prepared],
    *,
    bundled_prices: bool | None = None,
    count_baseline: bool = True,
    on_wait: Callable[[Holder], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> dict:
    """Reference + bundled data, each source's load, estimates and the run log, in order, into the
    workspace's warehouse.

    `loads` may be a function returning them, called once this writer holds the turn (and
    before the warehouse is opened): payloads it parses then cannot be replaced under raw/ by
    another writer before they load. `Unusable` (or a function returning it) records only that.

    `bundled_prices`: True or None (the default) load the bundled price snapshot's quotes for
    every provider no live price source has priced, on every kind of run, so a night without
    network still prices its estimates and no writer flips the market another one left; False
    leaves the stored snapshot as it is. The summary's `prices` says which prices ranked.
    `count_baseline=False` keeps the bundled loads out of the run's row counts (ingest and
    replay report only what they were asked to load). Returns finish_run's summary plus a
    `sources` list: status, counts, message and the first rejected rows per source. A second
    writer waits for the first; a writer that cannot get its turn leaves a `refused` run_log
    row and raises WarehouseBusy. `on_step` hears each stage as it starts ("rebuilding
    estimates"), for a progress line. An interrupted write (Ctrl-C) leaves its failed run_log row
    in the journal, at once, for the next writer.
    """
    step = on_step or _unheard
    try:
        with turn_taken(workspace, run.run_id, run.run_date, mode, on_wait=on_wait) as turn:
            prepared = loads() if callable(loads) else loads
            step("copying the warehouse to write")
            with turn.session() as session:
                if isinstance(prepared, Unusable):
                    return _record_unusable(session, run, mode, prepared)
                summary = _write(session, workspace, run, mode, prepared, bundled_prices, count_baseline, step)
                step("saving the warehouse")
            return summary
    except WarehouseBusy as exc:
        journal_run(workspace, _log_row(run, mode, "refused", str(exc)))
        raise
    except UnreadableWarehouse as exc:  # it cannot take the failed row either: the next writer will
        journal_run(workspace, _log_row(run, mode, "failed", f"{type(exc).__name__}: {exc}"[:2000]))
        raise
    except BaseException as exc:
        if _interrupted(exc):  # a person waiting: no second write session, one journal entry
            journal_run(workspace, _log_row(run, mode, "failed", INTERRUPTED))
        elif isinstance(exc, Exception):
            _record_failure(workspace, run, mode, f"{type(exc).__name__}: {exc}")
        raise


INTERRUPTED = "interrupted (Ctrl-C) before it finished: the warehouse kept nothing of it"


def _interrupted(error: BaseException | None) -> bool:
    """Whether `error` is Ctrl-C's, or an error it caused (DuckDB's "Query interrupted" is raised from it)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _unheard(_stage: str) -> None:
    """No one listens for stages (a Prefect worker, a test)."""


def _record_unusable(session: Writer, run: RunContext, mode: str, unusable: Unusable) -> dict:
    """One rejected_row and a failed run_log row, nothing else.

    No source_status row: a bad local file says nothing about whether the live source works,
    so it must not mark the source failed in tonight's report.
    """
    con = session.con
    if session.interrupted:
        record_interrupted(con, session.interrupted)
    start_run(con, run, mode)
    record_source_failure(con, unusable.source, table_for(spec_for(unusable.source).kind), unusable.message, run)
    return finish_run(con, run, [], {}, [], error=unusable.message)


def _write(session, workspace, run, mode, loads, bundled_prices, count_baseline, step) -> dict:
    con = session.con
    if session.interrupted:
        record_interrupted(con, session.interrupted)
    start_run(con, run, mode)
    step("loading the catalog and the bundled benchmarks")
    baseline_loads = _load_baseline(con, run, workspace.catalog_dir, mode)
    results, statuses = [], []
    for item in loads:
        step(f"loading {item.source}")
        table = table_for(spec_for(item.source).kind)
        index_payloads(con, item.kept, workspace.data_dir, run)
        if item.status == "skipped":
            statuses.append((item.source, "skipped", 0, 0, item.message))
            continue
        # Say what could not be read; the rows stored before stay as they were.
        if item.parsed is None and not item.problems:  # the fetch itself failed
            record_source_failure(con, item.source, table, item.message, run)
        for payload, why in item.problems:
            record_source_failure(con, item.source, table, why, run, payload or None)
        if item.parsed is None:
            statuses.append((item.source, "failed", 0, 0, item.message))
            continue
        result = load_parsed(con, item.source, spec_for(item.source).kind, item.parsed, run, item.window)
        results.append(result)
        statuses.append((item.source, "ok", result.loaded, result.rejected, item.message))
    if bundled_prices is not False:
        step("loading the bundled price snapshot")
        baseline_loads.append(_load_price_snapshot(con, run))
    as_of = as_of_date(con, run.run_date)
    prices = prices_ranked(con, as_of)
    log.info("run %s %s", run.run_id, prices)
    record_source_status(con, run, statuses)
    step("rebuilding estimates")
    counts = rebuild_estimates(con, run.run_id, as_of)
    if con.execute("select night_snapshot_wanted()").fetchone()[0]:  # a night: its curves beside its report rows
        step("drawing the interactivity curves")
        night_curve.keep(con, run.run_id, as_of, settings.night_curves())
    summary = finish_run(con, run, baseline_loads + results if count_baseline else results, counts, statuses)
    payloads = {item.source: len(item.kept) for item in loads}
    summary["sources"] = [_status(con, run, s) | {"payloads": payloads.get(s[0], 0)} for s in statuses]
    summary["prices"] = prices
    return summary


def _record_failure(workspace: Workspace, run: RunContext, mode: str, message: str) -> None:
    """The run failed: nothing it wrote was kept; its failed run_log row is, so people see it."""
    try:
        with writing(workspace, run.run_id, run.run_date, mode, wait_s=30) as session:
            start_run(session.con, run, mode)
            finish_run(session.con, run, [], {}, [], error=message[:2000])
    except Exception as exc:  # the warehouse itself (or its disk) is the problem: leave the row for the next writer
        log.warning("could not record the failure of run %s in the warehouse (%s); it waits in the run journal",
                    run.run_id, exc)
        journal_run(workspace, _log_row(run, mode, "failed", message[:2000]))


def _log_row(run: RunContext, mode: str, status: str, message: str) -> dict:
    return {
        "run_id": run.run_id,
        "run_date": run.run_date.isoformat(),
        "mode": mode,
        "started_at": run.extracted_at.isoformat(),
        "finished_at": datetime.now(UTC).replace(tzinfo=None).isoformat(),
        "status": status,
        "message": message,
    }


def _load_baseline(con, run: RunContext, catalog_dir: Path, mode: str) -> list[LoadResult]:
    # The catalog (and its gpu_alias) must be current before any source resolves GPU names;
    # the bundled benchmarks keep calibration points even when no benchmark source ran.
    catalog, unreadable = load_catalog_with_yours(catalog_dir)
    benchmarks = bundled.load_benchmark_results()
    wanted = baseline.digest(catalog, unreadable, benchmarks)
    if mode in ("ingest", "replay") and baseline.is_loaded(con, wanted):
        return []  # the warehouse holds exactly this baseline: no need to validate it again
    load_reference(con, catalog, run, unreadable)
    loaded = [load_benchmarks(con, "bundled_mlperf_and_runs", benchmarks, run, [bundled.BENCHMARK_PAYLOAD])]
    baseline.remember(con, wanted, run.run_id)
    return loaded


def _load_price_snapshot(con, run: RunContext) -> LoadResult:
    """The bundled snapshot's quotes, but for the providers a live price source has priced:
    those stand down (a live fetch replaces them); your quotes and runs only add to the market."""
    replaced = live_priced_providers(con)
    # whatever the night's date: the load below leaves the rows dated after the night as stored
    remove_providers(con, "price_quote", bundled.PRICE_PAYLOAD, replaced)
    prices = bundled.load_price_snapshot(without_providers=replaced)
    return load_prices(con, bundled.PRICE_SOURCE, prices, run, [bundled.PRICE_PAYLOAD])


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
