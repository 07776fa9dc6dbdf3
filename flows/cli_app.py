"""The Typer app and the options every gpucalc command shares."""

from __future__ import annotations

import functools
import os
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sources.kit import clock

if TYPE_CHECKING:
    from warehouse.store.workspace import Workspace

# No phoning home: this runs on machines whose only network is the package registries.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")  # Prefect's client telemetry, and its first-run notice on stderr

class _App(typer.Typer):
    """Typer whose every command turns a warehouse file it cannot read, a warehouse setting it
    cannot use, or a full disk, into one sentence, and an error Ctrl-C caused into its exit.

    Every command opens and writes files somewhere else (the read-only door, a private copy, a
    write session, raw/); a damaged warehouse, an unusable setting (GPUCALC_THREADS, a catalog
    that cannot be reached) or a full disk is the same news from each of them, so it is said here.
    """

    def command(self, *args, **kwargs):
        register = super().command(*args, **kwargs)

        def decorator(function):
            @functools.wraps(function)
            def guarded(*call_args, **call_kwargs):
                try:
                    return function(*call_args, **call_kwargs)
                except typer.Exit:
                    raise
                except Exception as exc:
                    if (code := _said_in_one_sentence(exc)) is None:
                        raise
                    raise typer.Exit(code) from exc

            register(guarded)
            return function

        return decorator


def _said_in_one_sentence(exc: Exception) -> int | None:
    """The exit code of an error said here in one sentence (or, after Ctrl-C, left to the
    interrupt's line: DuckDB's "Query interrupted", say), or None for one to raise as it is."""
    from flows import interrupt
    from flows.console import disk_full
    from warehouse.store.location import BadWarehouse, UnreadableWarehouse

    if interrupt.happened():
        return interrupt.CODE
    if isinstance(exc, UnreadableWarehouse | BadWarehouse):
        typer.echo(f"error: {exc}", err=True)
        return EXIT["failed"] if isinstance(exc, UnreadableWarehouse) else EXIT["usage"]
    if (sentence := disk_full(exc)) is None:
        return None
    typer.echo(f"error: {sentence}", err=True)
    return EXIT["failed"]


app = _App(no_args_is_help=True, add_completion=False)
# what a bug report needs: gpucalc's version and those of the engines whose behaviour it depends on
VERSIONED = ("gpucalc", "duckdb", "prefect", "polars", "great-expectations")


def _print_versions(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import version

        typer.echo(" ".join(f"{name} {version(name)}" for name in VERSIONED))
        raise typer.Exit()


@app.callback()
def _options(
    _version: Annotated[bool, typer.Option("--version", callback=_print_versions, is_eager=True,
                                           help="Print gpucalc's version and its engines', then exit.")] = False,
) -> None:
    """gpucalc: which GPUs, from whom, in what layout, for this job, and at what cost."""

# Exit codes every command uses (docs/operating.md, "Exit codes and settings").
EXIT = {"failed": 1, "usage": 2, "partial": 3, "refused": 4, "interrupted": 130}


def a_folder(value: str | Path | None, param_hint: str) -> str | Path | None:
    """`value`, unless it names a file where gpucalc wants a folder: a usage error, said at once."""
    if value and Path(value).exists() and not Path(value).is_dir():
        raise typer.BadParameter(f"{value} is a file, not a folder", param_hint=param_hint)
    return value


def _a_data_dir(value: str | None) -> str | None:
    """A data directory that is a file fails later with 'Not a directory: <dir>/logs': say it first."""
    return a_folder(value, "--data-dir")


DataDir = Annotated[
    str | None,
    typer.Option("--data-dir", help="Data directory (default $GPUCALC_DATA_DIR or ./data).", callback=_a_data_dir),
]
Warehouse = Annotated[
    str | None,
    typer.Option(
        "--warehouse",
        help="DuckDB file, ducklake:<catalog> (sqlite:FILE, postgres:CONN or a DuckDB file) or md:<database> "
        "(default $GPUCALC_WAREHOUSE or <data-dir>/warehouse.duckdb).",
    ),
]
# the ownership terms of one answer (whatif, compare, serve); defaults: assumptions.csv
Years = Annotated[float | None, typer.Option(help="Owned: years to amortise the capex over.")]
Utilization = Annotated[float | None, typer.Option(help="Owned: share of hours doing useful work, 0-1.")]
Pue = Annotated[float | None, typer.Option(help="Owned: power usage effectiveness, at least 1.")]
UsdPerKwh = Annotated[float | None, typer.Option("--usd-per-kwh", help="Owned: electricity, USD/kWh.")]
Colo = Annotated[float | None, typer.Option("--colo-usd-per-kw-month", help="Owned: colocation, USD per kW-month.")]
# progress lines show on a terminal only (flows/progress.py); this hides them there too
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr (shown on a terminal only).")]


def parse_date(value: str | None, *, not_after_today: bool = True) -> date | None:
    """A --date value; a day after today (UTC) is refused: data "observed" then would stay fresh.

    So is a year outside the one window gpucalc reads dates in (sources/kit/rows.py): no row of
    any file can be dated there, so such a night would load nothing and call it a success.
    """
    from sources.kit.rows import YEARS

    if value is None:
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError as exc:
        raise typer.BadParameter(f"{value!r} is not a date in YYYY-MM-DD form", param_hint="--date") from exc
    today = clock.today()
    if not_after_today and day > today:
        raise typer.BadParameter(f"{value} is in the future (today is {today.isoformat()} UTC)", param_hint="--date")
    if not YEARS[0] <= day.year <= YEARS[1]:
        raise typer.BadParameter(f"{value} is outside {YEARS[0]}-{YEARS[1]}, the years gpucalc reads dates in: "
                                 "give a date in that range", param_hint="--date")
    return day


def echo_wait(holder) -> None:
    """What a writer prints while another gpucalc process holds the warehouse."""
    typer.echo(f"waiting for {holder.describe()} to finish writing the warehouse ...", err=True)


COPYING = "copying the warehouse's inputs"  # the stage line while `private_copy` works (seconds)


def private_copy(workspace: Workspace):
    """An in-memory copy of the warehouse's inputs, with your <data-dir>/catalog/ rows on top as
    they are now, for answers that change inputs; what of your catalog it could not take is said
    on stderr."""
    from warehouse.questions.scratch import catalog_notes, scratch_copy

    con = scratch_copy(workspace.warehouse, workspace.catalog_dir)
    for note in catalog_notes(con):
        typer.echo(note, err=True)
    return con


def workspace_for(data_dir: str | None, warehouse: str | None = None) -> Workspace:
    """The data directory and warehouse a command works on, resolved once where it first needs them;
    a setting gpucalc cannot use is a usage error, one sentence."""
    from warehouse.store import settings
    from warehouse.store.location import BadWarehouse, remember_secrets
    from warehouse.store.workspace import Workspace, data_directory

    # the directory first: a data directory that is a file, or an engine setting gpucalc cannot
    # use, is said before the warehouse setting is read
    directory = data_directory(data_dir)
    _a_data_dir(str(directory))  # GPUCALC_DATA_DIR too
    settings.check_engine_settings()  # a BadWarehouse naming the variable: one sentence, exit 2 (_App)
    try:
        workspace = Workspace.resolve(directory, warehouse)
    except BadWarehouse as exc:
        raise typer.BadParameter(str(exc), param_hint="--warehouse / GPUCALC_WAREHOUSE") from exc
    remember_secrets(workspace.warehouse)  # a password given with --warehouse is hidden too
    return workspace
