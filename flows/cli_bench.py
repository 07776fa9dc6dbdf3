"""The recompute benchmark: `gpucalc bench --estimates N`."""

from __future__ import annotations

from typing import Annotated

import typer

from flows.cli_app import app


@app.command()
def bench(
    estimates: Annotated[
        float,
        typer.Option("--estimates", "-n", help="Estimate rows to produce, e.g. 1e7 (about; exact count printed)."),
    ] = 1e6,
    threads: Annotated[int | None, typer.Option(help="DuckDB threads (default: DuckDB's, one per core).")] = None,
    memory_limit: Annotated[
        str | None,
        typer.Option("--memory-limit", help="DuckDB memory_limit, e.g. 3GB (default: DuckDB's, 80% of RAM)."),
    ] = None,
    in_memory: Annotated[
        bool, typer.Option("--in-memory", help="Build the warehouse in memory instead of a temporary DuckDB file.")
    ] = False,
    backends: Annotated[
        str | None,
        typer.Option(
            "--backends",
            help="Warehouse kinds to recompute on, figures side by side: file, memory, ducklake-sqlite, "
            "ducklake-duckdb (default file,ducklake-sqlite; --in-memory alone means memory).",
        ),
    ] = None,
    no_insertion_order: Annotated[
        bool, typer.Option("--no-insertion-order", help="SET preserve_insertion_order = false before the recompute.")
    ] = False,
    workload_copies: Annotated[int | None, typer.Option(help="Copies of every workload (default: from N).")] = None,
    platform_copies: Annotated[int | None, typer.Option(help="Copies of every platform (default: from N).")] = None,
    profile: Annotated[bool, typer.Option("--profile", help="Also time each model file on its own.")] = False,
    workdir: Annotated[
        str | None, typer.Option(help="Where the temporary warehouse and DuckDB's spill files go (default: $TMPDIR).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Recompute a synthetic warehouse of about N estimate rows; print rows/s and peak memory."""
    import json

    from warehouse.bench import format_figures, run_benches
    from warehouse.bench.compare import format_side_by_side, parse_backends

    if estimates < 1:
        raise typer.BadParameter("--estimates must be at least 1")
    try:
        names = parse_backends(backends or ("memory" if in_memory else "file,ducklake-sqlite"))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--backends") from exc
    results = run_benches(
        int(estimates),
        names,
        threads=threads,
        memory_limit=memory_limit,
        settings={"preserve_insertion_order": False} if no_insertion_order else None,
        workload_copies=workload_copies,
        platform_copies=platform_copies,
        profile=profile,
        workdir=workdir,
    )
    if len(results) == 1:
        (figures,) = results.values()
        typer.echo(json.dumps(figures, indent=2, default=str) if as_json else format_figures(figures))
    else:
        typer.echo(json.dumps(results, indent=2, default=str) if as_json else format_side_by_side(results))
