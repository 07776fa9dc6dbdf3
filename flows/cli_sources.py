"""Source commands: ingest a local payload, replay a kept day, list the sources.

`ingest` and `replay` call plain functions (warehouse/loading/backfill.py) rather than a Prefect flow: a
one-file backfill should not wait for a Prefect server, and they share the nightly's single
writer routine, so a file loads exactly as the live fetch of it would.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from flows import interrupt, progress
from flows.cli_app import EXIT, DataDir, Quiet, Warehouse, app, echo_wait, parse_date, workspace_for
from sources.kit import clock

if TYPE_CHECKING:
    from warehouse.questions.freshness import Night

Day = Annotated[str | None, typer.Option("--date", help="Observation date, UTC (YYYY-MM-DD; default today).")]


@app.command()
def ingest(
    source: Annotated[str, typer.Argument(help="Source name (see `gpucalc sources`); `runs` and `quotes` work too.")],
    file: Annotated[Path, typer.Option("--file", help="A saved API response or catalog file of that source.")],
    provider: Annotated[
        str | None, typer.Option("--provider", help="Provider the file describes, where it does not say (vms.csv).")
    ] = None,
    day: Day = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    quiet: Quiet = False,
) -> None:
    """Parse a local copy of a source's payload, keep it under raw/, load it as observed on --date."""
    from sources.kit.raw_store import UnsafeName
    from sources.kit.registry import UnknownSource
    from warehouse.loading.backfill import NothingToDo, ingest_file

    when = parse_date(day) or clock.today()
    workspace = workspace_for(data_dir, warehouse)
    try:
        outcome = _refused_if_busy(
            lambda: ingest_file(source, file, provider, when, workspace, echo_wait, progress.stage),
            f"reading {file}", quiet)
    except (UnknownSource, NothingToDo, UnsafeName) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT["usage"]) from exc
    if not outcome.ok:
        hint = " (use --provider NAME, e.g. --provider aws)" if "provider" in outcome.message else ""
        typer.echo(f"error: {file} could not be read as {source}: {outcome.message}{hint}", err=True)
        typer.echo("nothing loaded; the reason is in rejected_row (rule source_unusable)", err=True)
        raise typer.Exit(EXIT["failed"])
    for kept in outcome.kept:
        typer.echo(f"kept {kept.path} (sha256 {kept.sha256[:16]}, {kept.bytes} bytes)")
        if kept.set_aside:
            typer.echo(f"    (replaces a different payload kept as {kept.name} that day; the one it replaces is kept "
                       f"at {kept.set_aside}: to load it again, move it and its .meta.json back and "
                       f"`gpucalc replay --date {when.isoformat()}`)")
    _echo_sources(outcome.summary)
    typer.echo(f"observed {when.isoformat()}; {outcome.summary['estimate_rows']} estimates rebuilt; "
               f"run {outcome.summary['run_id']} ({outcome.summary['status']})")


@app.command()
def replay(
    day: Annotated[str, typer.Option("--date", help="The day to rebuild from data/raw/<source>/<date>/.")],
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    quiet: Quiet = False,
) -> None:
    """Rebuild a day's observations from the payloads kept under raw/, with no network."""
    from warehouse.loading.backfill import NothingToDo, replay_day

    when = parse_date(day)
    workspace = workspace_for(data_dir, warehouse)
    try:
        outcome = _refused_if_busy(lambda: replay_day(when, workspace, echo_wait, progress.stage),
                                   f"reading the payloads kept for {when.isoformat()}", quiet)
    except NothingToDo as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT["failed"]) from exc
    typer.echo(f"replayed {len(outcome.kept)} kept payloads for {when.isoformat()}")
    _echo_sources(outcome.summary)
    typer.echo(f"{outcome.summary['estimate_rows']} estimates rebuilt; run {outcome.summary['run_id']} "
               f"({outcome.summary['status']})")
    if outcome.summary["status"] != "success":  # a source whose payloads could not be read
        raise typer.Exit(EXIT["failed"] if outcome.summary["status"] == "failed" else EXIT["partial"])


@app.command("sources")
def list_sources(data_dir: DataDir = None, warehouse: Warehouse = None) -> None:
    """Say which prices ranked on the newest night (live, your files, the bundled snapshot and its
    age), then list every source: kind, key, live or file-only, last fetch and load, staleness."""
    from sources.kit.environment import env
    from sources.kit.registry import ALIASES, all_specs
    from warehouse.loading.observations import STALE_AFTER_DAYS
    from warehouse.questions.freshness import lines

    today = clock.today()
    seen, night, note = _overview(workspace_for(data_dir, warehouse).warehouse, today)
    fetched = {name: _fetched_said(row["last_fetch"], today) for name, row in seen.items() if row.get("last_fetch")}
    specs = all_specs()
    if night is not None:
        priced = [name for name, spec in specs.items() if spec.kind == "prices"]
        for line in lines(night, [n for n in priced if specs[n].live], [n for n in priced if not specs[n].live],
                          fetched):
            typer.echo(line)
        typer.echo("")
    aliases = {canonical: alias for alias, canonical in ALIASES.items()}
    for name, spec in specs.items():
        row = seen.get(name, {})
        key = "no key" if not spec.key_env else (
            f"key {spec.key_env} ({'set' if env(spec.key_env) else 'NOT set: skipped'})"
        )
        mode = "live" if spec.live else f"file-only (gpucalc ingest {aliases.get(name, name)} --file PATH)"
        typer.echo(f"{name}  [{spec.kind}] {mode}; {key}")
        typer.echo(f"    {spec.description}")
        if not (row.get("last_ok") or row.get("last_fetch")):  # not "STALE": nothing of it was ever there
            typer.echo("    last fetch never; last good load never" + (NOTHING_IN[spec.kind] if spec.live else ""))
        else:
            stale = "n/a" if not spec.live else "STALE" if row.get("stale", True) else "fresh"
            typer.echo(
                f"    last fetch {fetched.get(name, 'never')}; last good load {row.get('last_ok') or 'never'}: "
                f"{_count(row.get('rows_loaded'))} rows loaded, {_count(row.get('rows_rejected'))} rejected; {stale}"
            )
        if row.get("unknown_gpu_rows"):
            typer.echo(
                f"    {row['unknown_gpu_rows']} rows ({row['unknown_gpu_share']:.0%}) rejected at that load because "
                "their GPU name did not resolve: see rejected_row (rule unknown_gpu), add a line to "
                "<data>/catalog/gpu_alias.csv and `gpucalc replay --date D`"
            )
        if row.get("last_status") and row["last_status"] != "ok":
            typer.echo(f"    latest attempt {row['last_status']}: {row.get('last_message') or ''}")
    typer.echo(f"\nSTALE source = no successful load in the last {STALE_AFTER_DAYS} days "
               f"(as of {today.isoformat()} UTC)")
    if note:
        typer.echo(note)


# what a live source never fetched adds to the night, by kind
NOTHING_IN = {"prices": ": none of its quotes rank", "benchmarks": ": none of its results calibrate"}


def _fetched_said(moment: datetime, today: date) -> str:
    """'2026-12-05 02:15 (1 day ago)': a fetch's time and its age in days (UTC)."""
    from warehouse.questions.plain_text import fmt_count

    age = (today - moment.date()).days
    ago = "today" if age == 0 else f"{fmt_count(age, 'day')} ago"
    return f"{moment.strftime('%Y-%m-%d %H:%M')} ({ago})"


def _overview(location: str, today: date) -> tuple[dict[str, dict], Night | None, str]:
    """Per-source facts and the newest night's prices from the warehouse, or nothing (and why)
    when it cannot be read."""
    import duckdb

    from warehouse.loading.observations import source_overview
    from warehouse.questions.freshness import ranked_tonight
    from warehouse.store import db
    from warehouse.store.location import BadWarehouse, UnreadableWarehouse, parse
    from warehouse.store.reader import connect_reader

    shown = parse(location).shown
    if not db.warehouse_exists(location):
        return {}, None, f"no warehouse at {shown} yet: `gpucalc run` or `gpucalc ingest` creates it"
    try:
        con = connect_reader(location)
    except UnreadableWarehouse as exc:  # damaged, or held by another program: the sources are still worth listing
        return {}, None, f"{exc}; showing sources only"
    except (duckdb.Error, BadWarehouse) as exc:  # an unreachable lake catalog, say
        return {}, None, f"warehouse {shown} could not be read ({exc}); showing sources only"
    try:
        frame = source_overview(con, today)
        night = ranked_tonight(con)
    except duckdb.CatalogException as exc:  # an older warehouse without the status tables
        return {}, None, f"warehouse {shown} has no source history yet ({exc})"
    finally:
        con.close()
    return {row["source"]: row for row in frame.to_dicts()}, night, ""


def _echo_sources(summary: dict) -> None:
    for item in summary.get("sources", []):
        files = f" from {item['payloads']} kept payload(s)" if item["payloads"] else ""
        line = f"{item['source']}: {item['status']}, {item['loaded']} rows loaded, {item['rejected']} rejected{files}"
        typer.echo(line + (f" ({item['message']})" if item["message"] else ""))
        for reject in item["examples"]:
            where = f"row {reject['source_row']}" if reject["source_row"] else "whole payload"
            times = f" (x{reject['times']})" if reject["times"] > 1 else ""
            typer.echo(f"    rejected {where} [{reject['rule']}]{times}: {reject['detail']}")
        shown = sum(r["times"] for r in item["examples"])
        if item["rejected"] > shown:
            typer.echo(f"    ... {item['rejected'] - shown} more in rejected_row")
    if summary.get("prices"):
        typer.echo(summary["prices"])


def _refused_if_busy(action, first: str, quiet: bool):
    """Run a writer action, its stages shown on a terminal; a warehouse another run held for too
    long, or a folder it may not write, is one sentence, not a trace."""
    from flows.console import not_writable, unwritable_folder
    from warehouse.loading.backfill import CannotWrite
    from warehouse.store.location import BadWarehouse
    from warehouse.store.write_session import WarehouseBusy

    try:
        interrupt.explain(interrupt.WRITER)
        with progress.shown(first, quiet):
            return action()
    except WarehouseBusy as exc:
        typer.echo(f"refused: {exc}", err=True)
        raise typer.Exit(EXIT["refused"]) from exc
    except BadWarehouse as exc:  # unreachable catalog, a lake kept elsewhere: one sentence
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT["failed"]) from exc
    except CannotWrite as exc:  # found before anything changed
        typer.echo(f"error: {not_writable(exc.folder)}", err=True)
        raise typer.Exit(EXIT["failed"]) from exc
    except OSError as exc:  # a folder deeper down that is read-only, found by the write itself
        if (folder := unwritable_folder(exc)) is None:
            raise
        typer.echo(f"error: {not_writable(folder)}", err=True)
        raise typer.Exit(EXIT["failed"]) from exc


def _count(value) -> str:
    return "-" if value is None else str(value)


