"""Source commands: ingest a local payload, replay a kept day, list the sources.

`ingest` and `replay` call plain functions (warehouse/loading/backfill.py) rather than a Prefect flow: a
one-file backfill should not wait for a Prefect server, and they share the nightly's single
writer routine, so a file loads exactly as the live fetch of it would.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from flows.cli_app import EXIT, DataDir, Warehouse, app, echo_wait, parse_date, workspace_for
from sources.kit import clock

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
) -> None:
    """Parse a local copy of a source's payload, keep it under raw/, load it as observed on --date."""
    from sources.kit.raw_store import UnsafeName
    from sources.kit.registry import UnknownSource
    from warehouse.loading.backfill import NothingToDo, ingest_file

    when = parse_date(day) or clock.today()
    workspace = workspace_for(data_dir, warehouse)
    try:
        outcome = _refused_if_busy(lambda: ingest_file(source, file, provider, when, workspace, echo_wait))
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
) -> None:
    """Rebuild a day's observations from the payloads kept under raw/, with no network."""
    from warehouse.loading.backfill import NothingToDo, replay_day

    when = parse_date(day)
    workspace = workspace_for(data_dir, warehouse)
    try:
        outcome = _refused_if_busy(lambda: replay_day(when, workspace, echo_wait))
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
    """List every source: kind, key, live or file-only, last fetch and load, staleness."""
    from sources.kit.environment import env
    from sources.kit.registry import ALIASES, all_specs
    from warehouse.loading.observations import STALE_AFTER_DAYS

    today = clock.today()
    seen, note = _overview(workspace_for(data_dir, warehouse).warehouse, today)
    aliases = {canonical: alias for alias, canonical in ALIASES.items()}
    for name, spec in all_specs().items():
        row = seen.get(name, {})
        key = "no key" if not spec.key_env else (
            f"key {spec.key_env} ({'set' if env(spec.key_env) else 'NOT set: skipped'})"
        )
        mode = "live" if spec.live else f"file-only (gpucalc ingest {aliases.get(name, name)} --file PATH)"
        if not spec.live:
            stale = "n/a"
        else:
            stale = "STALE" if row.get("stale", True) else "fresh"
        fetched = row.get("last_fetch")
        typer.echo(f"{name}  [{spec.kind}] {mode}; {key}")
        typer.echo(f"    {spec.description}")
        typer.echo(
            f"    last fetch {fetched.strftime('%Y-%m-%d %H:%M') if fetched else 'never'}; "
            f"last good load {row.get('last_ok') or 'never'}: {_count(row.get('rows_loaded'))} rows loaded, "
            f"{_count(row.get('rows_rejected'))} rejected; {stale}"
        )
        if row.get("unknown_gpu_rows"):
            typer.echo(
                f"    {row['unknown_gpu_rows']} rows ({row['unknown_gpu_share']:.0%}) rejected at that load because "
                "their GPU name did not resolve: see rejected_row (rule unknown_gpu), add a line to "
                "<data>/catalog/gpu_alias.csv and `gpucalc replay --date D`"
            )
        if row.get("last_status") and row["last_status"] != "ok":
            typer.echo(f"    latest attempt {row['last_status']}: {row.get('last_message') or ''}")
    typer.echo(f"\nstale = no successful load in the last {STALE_AFTER_DAYS} days (as of {today.isoformat()} UTC)")
    if note:
        typer.echo(note)


def _overview(location: str, today: date) -> tuple[dict[str, dict], str]:
    """Per-source facts from the warehouse, or nothing (and why) when it cannot be read."""
    import duckdb

    from warehouse.loading.observations import source_overview
    from warehouse.store import db
    from warehouse.store.location import BadWarehouse, UnreadableWarehouse, parse
    from warehouse.store.reader import connect_reader

    shown = parse(location).shown
    if not db.warehouse_exists(location):
        return {}, f"no warehouse at {shown} yet: `gpucalc run` or `gpucalc ingest` creates it"
    try:
        con = connect_reader(location)
    except UnreadableWarehouse as exc:  # damaged, or held by another program: the sources are still worth listing
        return {}, f"{exc}; showing sources only"
    except (duckdb.Error, BadWarehouse) as exc:  # an unreachable lake catalog, say
        return {}, f"warehouse {shown} could not be read ({exc}); showing sources only"
    try:
        frame = source_overview(con, today)
    except duckdb.CatalogException as exc:  # an older warehouse without the status tables
        return {}, f"warehouse {shown} has no source history yet ({exc})"
    finally:
        con.close()
    return {row["source"]: row for row in frame.to_dicts()}, ""


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


def _refused_if_busy(action):
    """Run a writer action; a warehouse another run held for too long, or a folder it may not
    write, is one sentence, not a trace."""
    from flows.console import not_writable, progress, unwritable_folder
    from warehouse.loading.backfill import CannotWrite
    from warehouse.store.location import BadWarehouse
    from warehouse.store.write_session import WarehouseBusy

    try:
        with progress("parsing, loading and recomputing estimates"):  # a spinner on a terminal
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


