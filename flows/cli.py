"""The gpucalc command line: `run` and `sql` here, the other commands in flows/cli_*.py."""

from __future__ import annotations

import os
import threading
from typing import Annotated

import typer

from flows import console, interrupt, progress
from flows.cli_app import EXIT, DataDir, Quiet, Warehouse, app, parse_date, workspace_for

MAX_TIMEOUT_S = 7 * 24 * 3600  # `sql --timeout`: a week; far beyond it a timer cannot wait (threading.TIMEOUT_MAX)


@app.command()
def run(
    offline: Annotated[bool, typer.Option("--offline", help="Bundled data only, no network.")] = False,
    run_date: Annotated[str | None, typer.Option("--date", help="Run as of this UTC date (YYYY-MM-DD).")] = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    sources: Annotated[
        str | None, typer.Option("--sources", help="Comma-separated live sources to fetch (default: all).")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", help="Show Prefect's progress lines too.")] = False,
    quiet: Quiet = False,
) -> None:
    """Run the nightly flow once: ingest, validate, recompute estimates, publish the report.

    Exit codes: 0 success, 3 partial (some live sources failed), 1 failed (the run failed,
    or every live source failed), 4 refused (another run held the warehouse too long),
    130 interrupted (Ctrl-C: the warehouse and report stay as the last finished run left them).
    """
    from sources.kit.registry import UnknownSource, pick_live
    from warehouse.store.write_session import WarehouseBusy

    picked = [s.strip() for s in sources.split(",") if s.strip()] if sources else None
    if picked and offline:
        raise typer.BadParameter("picks live sources to fetch, and --offline fetches none: give one or the other",
                                 param_hint="--sources")
    try:
        picked = pick_live(picked) if picked else None  # before the Prefect server starts
    except UnknownSource as exc:
        raise typer.BadParameter(str(exc), param_hint="--sources") from exc
    day = parse_date(run_date)
    workspace = workspace_for(data_dir, warehouse)  # a bad setting stops here, before Prefect starts
    # Prefect's own progress lines only with --verbose; warnings (a source that failed or was
    # skipped, one line each) always. Set before Prefect is imported, which reads it once.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO" if verbose else "WARNING")
    from flows.prefect_api import PrefectUnreachable, prefect_api

    interrupt.explain(interrupt.WRITER)
    try:
        with progress.shown("starting Prefect's API", quiet), prefect_api("flows.nightly"):
            from flows.nightly import nightly

            console.terse_prefect_errors(verbose)
            progress.stage("running the nightly flow")
            state = nightly(run_date=day, offline=offline, data_dir=data_dir, sources=picked,
                            warehouse=_as_flow_parameter(workspace.warehouse), return_state=True)
            # A failed night is a Failed flow run that still carries its summary; an error the flow
            # raised comes back as the result and is raised here, for the handlers below.
            result = state.result(raise_on_failure=False)
            if isinstance(result, BaseException):
                raise result
    except WarehouseBusy as exc:
        typer.echo(f"refused: {exc}", err=True)
        raise typer.Exit(EXIT["refused"]) from exc
    except PrefectUnreachable as exc:  # nothing ran: no log file to point at
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT["failed"]) from exc
    except Exception as exc:  # one sentence and a hint; the traceback only with --verbose
        console.fail(exc, "the run's log file under <data>/logs/ has the detail; --verbose shows the traceback",
                     verbose)
    if interrupt.happened():  # Prefect may have let the run finish: Ctrl-C still ends it as one
        raise typer.Exit(interrupt.CODE)
    if result.get("prices"):
        typer.echo(result["prices"])
    typer.echo(f"{result['status']}: report {result['report']} (log {result['log']})")
    if result["status"] != "success":
        raise typer.Exit(EXIT[result["status"]])


def _as_flow_parameter(location: str) -> str | None:
    """The location to pass the flow, or None where it holds a secret: Prefect stores a flow's
    parameters in its database, so such a location reaches the flow through GPUCALC_WAREHOUSE."""
    from warehouse.store.location import redact

    if redact(location) == location:
        return location
    os.environ["GPUCALC_WAREHOUSE"] = location
    return None


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="One SQL statement to run against the warehouse (read-only).")],
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Read the warehouse as the last write of this UTC day left it (DuckLake)."),
    ] = None,
    max_rows: Annotated[int, typer.Option("--max-rows", help="Rows to print at most (table format), at least 1.")]
    = 200,
    timeout: Annotated[
        float,
        typer.Option("--timeout", help=f"Stop the query after this many seconds: above 0, at most {MAX_TIMEOUT_S} "
                                       "(a week); more is refused."),
    ] = 300.0,
    fmt: Annotated[str, typer.Option("--format", help="table, or csv / jsonl: every row, for a file or a pipe.")]
    = "table",
) -> None:
    """Run one SQL statement over a read-only connection and print the result as a table.

    The connection reads the warehouse and nothing else: no other file (COPY, ATTACH,
    read_csv, EXPORT), no extensions, no settings changes; `--format csv` (or jsonl) prints
    every row instead, for `> result.csv` or a pipe (in CSV, text a spreadsheet would run as a
    formula starts with a quote).
    """
    import duckdb

    from warehouse.store.location import BadWarehouse
    from warehouse.store.reader import connect_reader

    if fmt not in ("table", *ROW_WRITERS):
        raise typer.BadParameter(f"{fmt!r}: use table, csv or jsonl", param_hint="--format")
    problem = _sql_usage_problem(query, timeout, max_rows)
    if problem:
        typer.echo(problem, err=True)
        raise typer.Exit(EXIT["usage"])
    try:
        con = connect_reader(workspace_for(data_dir, warehouse).warehouse, as_of=parse_date(as_of))
    except (FileNotFoundError, BadWarehouse) as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT["usage"]) from exc
    timer = threading.Timer(timeout, con.interrupt)
    try:
        timer.start()
        relation = con.sql(query)
        if relation is None:
            typer.echo("ok")
            return
        if fmt == "table":
            relation.show(max_rows=max_rows, max_width=240)
        else:
            ROW_WRITERS[fmt](relation)
    except KeyboardInterrupt as exc:
        con.interrupt()
        interrupt.say()
        raise typer.Exit(EXIT["interrupted"]) from exc
    except (duckdb.InterruptException, RuntimeError) as exc:
        if isinstance(exc, RuntimeError) and "interrupt" not in str(exc).lower():
            raise
        fired = timer.finished.is_set()  # set once the timer ran (it is cancelled only below)
        if fired:
            typer.echo(f"query stopped after {timeout:g} s (--timeout)", err=True)
        else:
            interrupt.say()
        raise typer.Exit(EXIT["interrupted"]) from exc
    except duckdb.Error as exc:
        typer.echo(f"SQL error: {exc}", err=True)
        raise typer.Exit(EXIT["usage"]) from exc
    finally:
        timer.cancel()
        con.close()


def _sql_usage_problem(query: str, timeout: float, max_rows: int) -> str | None:
    """What is wrong with `sql`'s arguments, in one sentence, or None."""
    from warehouse.store.reader import statements_written

    if not 0 < timeout < float("inf"):  # 0 or less would stop every query at once, nan never
        return f"--timeout must be a finite number of seconds above zero, got {timeout:g}"
    if timeout > MAX_TIMEOUT_S:
        return f"--timeout must be at most {MAX_TIMEOUT_S} seconds (a week), got {timeout:g}"
    if max_rows < 1:
        return f"--max-rows must be a number of rows from 1 up, got {max_rows}"
    given = statements_written(query)
    return None if given == 1 else f"one statement per call, please ({given} given)"


def _csv_rows(relation) -> None:
    import csv
    import sys

    from reports.export import spreadsheet_text

    # csv quotes a field only for the characters of its line ending: with CRLF a field holding
    # a carriage return is quoted too, and each row leaves with a plain newline
    out = csv.writer(_RowsEndingInNewline(sys.stdout), lineterminator="\r\n")
    out.writerow(relation.columns)
    while rows := relation.fetchmany(10_000):  # streamed: a 10-million-row answer fits in memory
        out.writerows([spreadsheet_text(value) for value in row] for row in rows)


class _RowsEndingInNewline:
    """A file for csv.writer, which writes each row whole, in one call."""

    def __init__(self, out):
        self._out = out

    def write(self, row: str) -> int:
        return self._out.write(row.removesuffix("\r\n") + "\n")


def _jsonl_rows(relation) -> None:
    import json
    import sys

    columns = relation.columns
    while rows := relation.fetchmany(10_000):
        sys.stdout.writelines(json.dumps(dict(zip(columns, row, strict=True)), default=str) + "\n" for row in rows)


ROW_WRITERS = {"csv": _csv_rows, "jsonl": _jsonl_rows}


# The other commands register themselves on `app` when their module is imported.
from flows import cli_bench, cli_calculus, cli_decide, cli_lookup, cli_report, cli_sources  # noqa: E402,F401


def main() -> None:
    """The `gpucalc` console command: the app, then an exit that skips the interpreter's teardown.

    Unloading what a command imported (Prefect, Great Expectations, Polars, DuckDB) is slow
    (docs/scale.md) and does nothing the command needs: its connections and files are closed
    and its Prefect server stopped by then; the logs are flushed here. A command Ctrl-C
    stopped ends with exit 130 and its one line, however it came out, and flushes nothing more:
    Prefect's log handler would wait seconds to send events to the server it no longer has
    (flows/interrupt.py).
    """
    import logging
    import sys

    interrupt.install()
    try:
        app()
        code = 0
    except SystemExit as exc:
        code = exc.code
    if isinstance(code, str):  # what sys.exit("message") would print
        print(code, file=sys.stderr)
        code = 1
    if interrupt.happened():
        interrupt.end_now()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":  # `python -m flows.cli`, as the console command would
    main()
