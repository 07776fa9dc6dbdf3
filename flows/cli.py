"""The gpucalc command line: `run` and `sql` here, the other commands in flows/cli_*.py."""

from __future__ import annotations

from typing import Annotated

import typer

from flows.cli_app import DataDir, app, parse_date, warehouse_location


@app.command()
def run(
    offline: Annotated[bool, typer.Option("--offline", help="Bundled data only, no network.")] = False,
    run_date: Annotated[str | None, typer.Option("--date", help="Run as of this UTC date (YYYY-MM-DD).")] = None,
    data_dir: DataDir = None,
    sources: Annotated[
        str | None, typer.Option("--sources", help="Comma-separated live sources to fetch (default: all).")
    ] = None,
) -> None:
    """Run the nightly flow once: ingest, validate, recompute estimates, publish the report."""
    from sources.registry import UnknownSource, pick_live

    picked = [s.strip() for s in sources.split(",") if s.strip()] if sources else None
    try:
        picked = pick_live(picked) if picked else None  # before the Prefect server starts
    except UnknownSource as exc:
        raise typer.BadParameter(str(exc), param_hint="--sources") from exc
    from flows.nightly import nightly

    result = nightly(run_date=parse_date(run_date), offline=offline, data_dir=data_dir, sources=picked)
    for item in result.get("sources", []):
        if item["status"] != "ok":  # one line per skipped (missing key) or failed source
            typer.echo(f"{item['source']} {item['status']}: {item['message']}")
    typer.echo(f"{result['status']}: report {result['report']}")
    if result["status"] == "failed":
        raise typer.Exit(1)


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SQL to run against the warehouse (read-only).")],
    data_dir: DataDir = None,
    max_rows: Annotated[int, typer.Option("--max-rows", help="Rows to print at most.")] = 200,
) -> None:
    """Run a SQL query over a read-only connection and print the result as a table."""
    import duckdb

    from warehouse import db

    location = warehouse_location(data_dir)
    try:
        con = db.connect(location, read_only=True)
    except FileNotFoundError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    try:
        relation = con.sql(query)
        if relation is None:
            typer.echo("ok")
            return
        relation.show(max_rows=max_rows, max_width=240)
    except duckdb.Error as exc:
        typer.echo(f"SQL error: {exc}", err=True)
        raise typer.Exit(2) from exc
    finally:
        con.close()


# The other commands register themselves on `app` when their module is imported.
from flows import cli_bench, cli_calculus, cli_sources  # noqa: E402,F401
