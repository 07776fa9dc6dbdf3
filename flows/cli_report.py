"""Report commands: rebuild a night's report from the warehouse, export tables for other tools."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from flows.cli_app import DataDir, Quiet, Warehouse, a_folder, app, parse_date, workspace_for

Verbose = Annotated[bool, typer.Option("--verbose", help="Show the traceback of an error.")]


@app.command()
def report(
    day: Annotated[str | None, typer.Option("--date", help="Night to rebuild, YYYY-MM-DD (default: newest).")] = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    verbose: Verbose = False,
    quiet: Quiet = False,
) -> None:
    """Rebuild a night's report (pages, charts, HTML) and the history, as the night wrote them.

    Reads only what the night kept (its snapshot in the warehouse), so a past night comes out
    byte for byte as published, whatever ran since.
    """
    from flows import console, interrupt, progress
    from reports.render import NoNight, write_report

    when = parse_date(day, not_after_today=False)
    interrupt.explain(interrupt.WRITER)
    try:
        with progress.shown("report: opening the warehouse", quiet):
            workspace = workspace_for(data_dir, warehouse)
            published = write_report(workspace.warehouse, workspace.reports_dir, when, on_step=progress.stage)
    except FileNotFoundError as exc:  # no warehouse written yet
        console.fail(exc, "run `gpucalc run --offline` (or point --data-dir at a data directory)", verbose, 2)
    except NoNight as exc:
        console.fail(exc, "reports exist for nightly runs (`gpucalc run`); pick one of the dates listed", verbose)
    except Exception as exc:
        console.fail(exc, "rerun with --verbose for the traceback", verbose)
    drawn = sum(chart.drawn for chart in published.charts.values())
    typer.echo(f"report {published.path} (+ index.html, {len(published.files)} files; "
               f"{drawn} of {len(published.charts)} charts drawn, the rest unchanged)")


@app.command()
def export(
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv.")] = "parquet",
    out: Annotated[Path | None, typer.Option("--out", help="Folder for the files (default <data>/export).")] = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    verbose: Verbose = False,
    quiet: Quiet = False,
) -> None:
    """Write the estimate, price and benchmark tables as Parquet or CSV files, one per table."""
    from flows import console, progress
    from reports.export import FORMATS
    from reports.export import export as export_tables
    from warehouse.store.protected_paths import kept_state_reason
    from warehouse.store.reader import connect_reader

    if fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format")
    target = a_folder(out, "--out")  # a wrong --out is said before any setting is read
    workspace = workspace_for(data_dir, warehouse)
    target = target or a_folder(workspace.export_dir, "--out")
    reason = kept_state_reason(target, workspace)
    if reason is not None:
        raise typer.BadParameter(f"{reason}; name a folder outside it", param_hint="--out")
    try:
        con = connect_reader(workspace.warehouse)
    except FileNotFoundError as exc:  # no warehouse written yet
        console.fail(exc, "run `gpucalc run --offline` (or point --data-dir at a data directory)", verbose, 2)
    try:
        with progress.shown("export: writing tables", quiet):
            written = export_tables(con, target, fmt)
    except OSError as exc:
        console.fail(exc, f"check that {target} can be written", verbose)
    finally:
        con.close()
    for path, rows in written:
        typer.echo(f"{path}  {rows:,} rows")
