"""Look-up commands: list what the catalog holds, and tonight's prices for one accelerator.

Both read the warehouse through the read-only door; the SQL and the wording are in
warehouse/questions/lookup.py, the names people type in warehouse/questions/names.py.
"""

from __future__ import annotations

import json
import shutil
import sys
from enum import StrEnum
from typing import Annotated

import typer

from flows.cli_app import EXIT, DataDir, Warehouse, app, workspace_for

AsJson = Annotated[bool, typer.Option("--json", help="Print the rows as JSON, for machines.")]
WRAPPED_MIN_WIDTH = 14  # a wrapped column of a table keeps at least this many characters
NO_WAREHOUSE_HINT = "run `gpucalc run --offline` (or point --data-dir at a data directory)"


class Listed(StrEnum):
    workloads = "workloads"
    platforms = "platforms"
    gpus = "gpus"
    models = "models"


@app.command("list")
def list_(
    kind: Annotated[Listed, typer.Argument(help="What to list: workloads, platforms, gpus or models.")],
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_json: AsJson = False,
) -> None:
    """List the ids you can type, with names and what each is: workloads (kind, model, scenario and limits
    or tokens and epochs), platforms (GPUs per system, scale-up domain, sold by server or rack), gpus
    (vendor, memory, dense BF16/FP8 peaks) or models (parameters, architecture)."""
    from warehouse.questions import lookup, lookup_text

    con = _reader(data_dir, warehouse)
    try:
        rows = lookup.listing(con, kind.value)
    finally:
        con.close()
    if as_json:
        typer.echo(json.dumps(rows, indent=1, default=str))
    else:
        _table(lookup_text.COLUMNS[kind.value], rows)


@app.command()
def prices(
    gpu: Annotated[str, typer.Argument(help="An accelerator as you would say it (H100, b200, GB200, MI300X, "
                                            "'H100 SXM'), a catalog id or a platform id.")],
    pricing: Annotated[
        str,
        typer.Option(help="Price basis: on_demand, spot, reserved_1y, reserved_3y, owned, or all (default)."),
    ] = "all",
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_json: AsJson = False,
) -> None:
    """Tonight's quotes for one accelerator across providers and price bases, cheapest per GPU-hour first:
    provider, instance, GPUs, $/GPU-h, $/instance-h, basis, region, when observed and how old, and whether
    the quote is live, from your file or from the bundled snapshot (the prices the newest night ranked).
    Above them, the market per basis: cheapest, median and dearest GPU-hour, spread, quotes, providers."""
    from warehouse.questions import lookup, lookup_text
    from warehouse.questions.like_for_like import gpu_markets
    from warehouse.questions.names import meaning
    from warehouse.questions.whatif_inputs import WhatIfError, pricing_bases

    try:
        bases = pricing_bases(pricing)
    except WhatIfError as exc:
        raise typer.BadParameter(str(exc), param_hint="--pricing") from exc
    con = _reader(data_dir, warehouse)
    try:
        meant = meaning(con, gpu)
        rows = lookup.prices(con, meant.gpu_id, bases)
        market = gpu_markets(con, meant.gpu_id, bases)
        night = lookup.night(con)
    except WhatIfError as exc:
        typer.echo(f"prices: {exc}", err=True)
        raise typer.Exit(EXIT["usage"]) from exc
    finally:
        con.close()
    said = None if meant.typed == meant.gpu_id else meant.sentence()
    if as_json:
        typer.echo(json.dumps({"gpu": meant.gpu_id, "name": meant.gpu_name, "means": said, "night": night,
                               "pricing": list(bases), "market": market, "quotes": rows}, indent=1, default=str))
        return
    if said:
        typer.echo(said, err=True)
    typer.echo(lookup_text.prices_title(meant.gpu_id, meant.gpu_name, rows, night, bases))
    for line in lookup_text.market_lines(market):
        typer.echo(line)
    if rows:
        _table(lookup_text.COLUMNS["prices"], rows)


def _reader(data_dir: str | None, warehouse: str | None):
    """The warehouse, read-only; before the first run one sentence and the hint (exit 2)."""
    from flows import console
    from warehouse.store.reader import connect_reader

    workspace = workspace_for(data_dir, warehouse)
    try:
        return connect_reader(workspace.warehouse)
    except FileNotFoundError as exc:  # no warehouse written yet
        console.fail(exc, NO_WAREHOUSE_HINT, False, EXIT["usage"])


def _table(columns, rows: list[dict]) -> None:
    """The rows as a table as wide as the terminal: free text wraps, and where even that does not fit,
    the columns least needed are left out (said below the table). A pipe gets every cell whole."""
    from rich.console import Console

    from sources.kit.environment import env

    terminal = sys.stdout.isatty()
    width = shutil.get_terminal_size().columns if terminal else int(env("COLUMNS") or 0) or 10_000
    console = Console(width=width, highlight=False, soft_wrap=False, force_terminal=terminal or None,
                      no_color=not terminal)
    shown = list(columns)
    table = _rich_table(shown, rows, terminal)
    while _narrowest(console, table) > width and any(c.drop for c in shown):
        shown.remove(min((c for c in shown if c.drop), key=lambda c: c.drop))
        table = _rich_table(shown, rows, terminal)
    left_out = [c.header for c in columns if c not in shown]
    with console.capture() as captured:
        console.print(table)
    lines = [line.rstrip() for line in captured.get().splitlines()]
    if left_out:
        lines.append(f"(left out for the terminal's width: {', '.join(left_out)}; a wider window or --json has them)")
    typer.echo("\n".join(lines), color=terminal)


def _rich_table(columns, rows: list[dict], terminal: bool):
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True,
                  header_style="bold" if terminal else "")
    cells = [[column.cell(row) or "" for column in columns] for row in rows]
    for index, column in enumerate(columns):
        # free text wraps at its spaces, never inside a word nor into a sliver: the other columns give way
        texts = [column.header, *(line[index] for line in cells)]
        word = max(len(w) for text in texts for w in [*text.split(), ""])
        least = max(min(max(map(len, texts)), WRAPPED_MIN_WIDTH), word)
        table.add_column(column.header, justify="right" if column.right else "left", no_wrap=not column.wraps,
                         overflow="fold", min_width=least if column.wraps else None)
    for line in cells:
        table.add_row(*line)
    return table


def _narrowest(console, table) -> int:
    """The fewest characters the table fits in, every column wrapped as far as it may."""
    from rich.measure import Measurement

    return Measurement.get(console, console.options.update(width=10_000), table).minimum
