"""Decision commands: compare (rent, buy or API for a job) and serve (a fleet sized to your demand)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from flows import progress
from flows.cli_app import (
    COPYING,
    EXIT,
    Colo,
    DataDir,
    Pue,
    Quiet,
    UsdPerKwh,
    Utilization,
    Warehouse,
    Years,
    app,
    private_copy,
    workspace_for,
)

if TYPE_CHECKING:
    from warehouse.store.workspace import Workspace

Pricing = Annotated[
    str,
    typer.Option(help="Price basis: on_demand, spot, reserved_1y, reserved_3y, owned, or all (default: all, "
                 "each basis its own row, never mixed)."),
]
Platforms = Annotated[
    str | None,
    typer.Option(help="Comma-separated platforms to set side by side, e.g. gb200-nvl72,hgx-b200-8, or accelerators "
                 "as you say them (H100, GB200: the platforms built from each) (default: the best of every "
                 "platform per basis)."),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the choices as JSON, every figure with its basis.")]
Prices = Annotated[list[str] | None, typer.Option(
    "--price", help="Your price for a platform, in place of tonight's quotes of its accelerator on that basis: "
    "PLATFORM=PRICE[@BASIS], e.g. gb200-nvl72=10.50/gpu-h or hgx-b200-8=44/system-h@spot (basis: on_demand "
    "unless given); repeatable. Answers name it \"your price\".")]
Sweep = Annotated[bool, typer.Option(
    "--sweep", help="The interactivity curve: per platform, $ per million output tokens and tokens/s per GPU "
    "at 10 to 150 tokens/s per user (TPOT 100 ms to 6.7 ms), TTFT and demand kept, and where the cheaper "
    "platform changes; on_demand unless --pricing names bases.")]


def _named_platforms(con, platforms: str | None) -> list[str] | None:
    """The platforms --platforms names, as ids: 'H100' means hgx-h100-8, said on stderr; an exact
    platform id is taken as it is."""
    from warehouse.questions.names import platform_ids

    named = [p.strip() for p in platforms.split(",") if p.strip()] if platforms else None
    if not named:
        return None
    named, notes = platform_ids(con, named)
    for note in notes:
        typer.echo(note, err=True)
    return named


def _answer(con, workload_id: str, pricing: str, platforms: str | None, as_json: bool) -> None:
    from warehouse.questions import decide
    from warehouse.questions.decision_text import render
    from warehouse.questions.fleet_rows import platform_shapes
    from warehouse.questions.like_for_like import like_for_like
    from warehouse.questions.market_text import like_for_like_lines
    from warehouse.questions.whatif_inputs import pricing_bases

    named = _named_platforms(con, platforms)
    rows = decide.choices(con, workload_id, pricing_bases(pricing), named)
    workload = decide.workload_row(con, workload_id)
    refused = decide.refusals(con, workload_id, named)
    # named platforms are also set side by side like for like: their markets, the same providers
    like = like_for_like(con, workload_id, named, pricing_bases(pricing)) if named else None
    shapes = platform_shapes(con, [p for p in rows["platform_id"].to_list() if p]) if rows.height else {}
    if as_json:
        choices = _choices_json(workload, rows.to_dicts(), shapes)
        typer.echo(json.dumps({"workload": workload, "choices": choices,
                               "refusals": [{"refusal": r, "layouts": n} for r, n in refused],
                               **({"like_for_like": like} if like else {})}, indent=1, default=str))
    else:
        market = like_for_like_lines(like, workload) if like else []
        typer.echo("\n".join([render(workload, rows, refused, shapes), *market]))


def _choices_json(workload: dict, rows: list[dict], shapes: dict[str, dict]) -> list[dict]:
    """The choices for `--json`: each fleet as it runs (fleet_json), its figures' range over its
    error band and the demand below which the managed API is cheaper."""
    from warehouse.questions.decision_ranges import api_row, break_even_json, paced_by_demand, range_json
    from warehouse.questions.fleet_rows import fleet_json

    api, paced = api_row(workload, rows), paced_by_demand(workload)
    choices = []
    for row in rows:
        choice = fleet_json(row, shapes)
        # the range scales the fleet's own capacity; the break-even reads the modelled rate it is scaled from
        choices.append({**choice, **range_json(choice, paced), **break_even_json(row, api)})
    return choices


def _sweep_answer(con, workload_id: str, pricing: str, platforms: str | None, as_json: bool) -> None:
    """The sweep's points (already built in `con`) as a table per basis, or JSON."""
    from warehouse.questions import decide, sweep
    from warehouse.questions.sweep_text import render
    from warehouse.questions.whatif_inputs import pricing_bases

    ids = sweep.sweep_ids(workload_id)
    bases = ("on_demand",) if pricing == "all" else pricing_bases(pricing)
    named = _named_platforms(con, platforms) or sweep.platforms_meeting(con, ids)
    rows = sweep.points(con, ids, named, bases)
    crossovers = sweep.crossovers(con, ids, rows, named, bases)
    workload = decide.workload_row(con, workload_id)
    if as_json:
        typer.echo(json.dumps({"workload": workload, "platforms": named,
                               "tokens_per_s_per_user": list(sweep.USER_RATES), "points": rows,
                               "crossovers": crossovers}, indent=1, default=str))
    else:
        typer.echo(render(workload, rows, crossovers, named, bases, sweep.USER_RATES))


def _private_copy(workspace: Workspace, ownership: dict[str, float], prices: list | None = None):
    """A private copy of the warehouse's inputs with the user's ownership terms and prices applied."""
    from sources.kit.clock import today
    from warehouse.questions.whatif_inputs import apply_assumptions
    from warehouse.questions.your_price import apply_prices

    con = private_copy(workspace)
    apply_assumptions(con, ownership, "your flag")
    for note in apply_prices(con, prices or [], today()):
        typer.echo(note, err=True)
    return con


def _fail(command: str, exc: Exception) -> None:
    typer.echo(f"{command}: {exc}", err=True)
    raise typer.Exit(EXIT["usage"]) from exc


@app.command()
def compare(
    workload: Annotated[str, typer.Argument(help="Workload id, e.g. deepseek-r1-mtp or dflash-qwen36-27b.")],
    pricing: Pricing = "all",
    platforms: Platforms = None,
    years: Years = None,
    utilization: Utilization = None,
    pue: Pue = None,
    usd_per_kwh: UsdPerKwh = None,
    colo_usd_per_kw_month: Colo = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_json: AsJson = False,
    sweep: Sweep = False,
    price: Prices = None,
    quiet: Quiet = False,
) -> None:
    """Rent on-demand, rent spot, rent reserved, buy or the managed API for one job: time and cost, or
    dollars per million tokens for serving, each on its own price basis, with its range over the
    model's p90 error, when buying pays, and below which demand the managed API is cheaper.
    With --platforms, prices like for like too: each platform's market per GPU-hour (cheapest, median,
    dearest, spread, quotes, providers) and the first platform against each other at every provider
    that prices both.

    Reads the warehouse the nightly run built; ownership flags and your prices answer in a private copy.
    """
    from sources.kit.clock import today
    from warehouse.questions import decide
    from warehouse.questions.sweep import add_sweep
    from warehouse.questions.whatif_inputs import WhatIfError, ownership_overrides, pricing_bases
    from warehouse.questions.your_price import parse_prices

    try:
        pricing_bases(pricing)
        ownership = ownership_overrides(years=years, utilization=utilization, pue=pue, usd_per_kwh=usd_per_kwh,
                                        colo_usd_per_kw_month=colo_usd_per_kw_month)
        prices = parse_prices(price)
        workspace = workspace_for(data_dir, warehouse)
        with progress.shown("opening the warehouse", quiet):
            if ownership or sweep or prices:
                progress.stage(COPYING)
                con = _private_copy(workspace, ownership, prices)
                if sweep:
                    add_sweep(con, workload)
                progress.stage("rebuilding estimates with your terms")
                decide.rebuild(con, today())
            else:
                con = _reader_or_bundled(workspace)
        (_sweep_answer if sweep else _answer)(con, workload, pricing, platforms, as_json)
    except (decide.DecideError, WhatIfError) as exc:
        _fail("compare", exc)


def _reader_or_bundled(workspace: Workspace):
    """The warehouse, read-only; before the first nightly run, or when your catalog changed since
    the last, its inputs with the catalog you have, recomputed in memory."""
    from sources.kit.clock import today
    from warehouse.loading.baseline import catalog_changed
    from warehouse.questions import decide
    from warehouse.store import db
    from warehouse.store.reader import connect_reader

    if not db.warehouse_exists(workspace.warehouse):
        typer.echo("no warehouse yet (gpucalc run --offline builds one): answering from the bundled data", err=True)
    else:
        con = connect_reader(workspace.warehouse)
        yours = workspace.catalog_dir
        try:
            if not catalog_changed(con, yours):
                return con
        except BaseException:
            con.close()
            raise
        con.close()
        which = ("your catalog (<data>/catalog/)" if any(yours.glob("*.csv"))
                 else "the bundled catalog (a newer gpucalc)")
        typer.echo(f"{which} changed since the warehouse loaded it: answering from a private copy that has it; "
                   "the next `gpucalc run` publishes it", err=True)
    progress.stage(COPYING)
    con = private_copy(workspace)
    progress.stage("rebuilding estimates")
    decide.rebuild(con, today())
    return con


@app.command()
def serve(
    model: Annotated[str, typer.Option(help="Model id from the catalog, e.g. llama2-70b or deepseek-r1.")],
    input_len: Annotated[float, typer.Option("--input-len", help="Mean prompt tokens per request.")],
    output_len: Annotated[float, typer.Option("--output-len", help="Mean generated tokens per request.")],
    demand: Annotated[
        float | None, typer.Option(help="Output tokens per second the fleet must sustain (or --requests-per-s).")
    ] = None,
    requests_per_s: Annotated[
        float | None, typer.Option("--requests-per-s", help="Requests per second instead: x --output-len tokens each.")
    ] = None,
    ttft_ms: Annotated[float | None, typer.Option("--ttft-ms", help="99th-percentile time to first token, ms.")] = None,
    tpot_ms: Annotated[
        float | None, typer.Option("--tpot-ms", help="99th-percentile time per output token, ms.")
    ] = None,
    dtype: Annotated[str, typer.Option(help="fp4, fp8 or bf16 (each GPU runs the nearest it supports).")] = "fp8",
    draft_model: Annotated[str | None, typer.Option(
        "--draft-model", help="Speculative decoding: the drafter, a catalog model (e.g. deepseek-r1-mtp-module); "
        "with --draft-tokens and --accepted-per-step, and the demand then counts accepted tokens.")] = None,
    draft_tokens: Annotated[int | None, typer.Option(
        "--draft-tokens", help="Tokens the drafter proposes per step (DeepSeek-R1's MTP: 1).")] = None,
    accepted_per_step: Annotated[float | None, typer.Option(
        "--accepted-per-step", help="Tokens kept per step, the verified one included (MTP at 92% acceptance: "
        "1.92).")] = None,
    pricing: Pricing = "all",
    platforms: Platforms = None,
    years: Years = None,
    utilization: Utilization = None,
    pue: Pue = None,
    usd_per_kwh: UsdPerKwh = None,
    colo_usd_per_kw_month: Colo = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_json: AsJson = False,
    sweep: Sweep = False,
    price: Prices = None,
    quiet: Quiet = False,
) -> None:
    """The cheapest fleet that serves your demand within your latency SLA, per price basis, in dollars per
    million output tokens with its range over the model's p90 error, and the managed API beside it:
    below which demand it is cheaper than each fleet.

    Answered in a private copy of the warehouse: your job is not added to it. To keep a serving job in
    the nightly report, add it to <data-dir>/catalog/workload.csv (docs/your_own_model.md).
    """
    from sources.kit.clock import today
    from warehouse.questions import decide
    from warehouse.questions.sweep import add_sweep
    from warehouse.questions.whatif_inputs import WhatIfError, ownership_overrides, pricing_bases
    from warehouse.questions.your_price import parse_prices

    try:
        pricing_bases(pricing)
        prices = parse_prices(price)
        if (demand is None) == (requests_per_s is None):
            raise decide.DecideError("give the demand once: --demand TOKENS/S or --requests-per-s N")
        tokens_per_s = demand if demand is not None else requests_per_s * output_len
        job = decide.Demand(model, tokens_per_s, input_len, output_len, ttft_ms, tpot_ms, dtype,
                            draft_model=draft_model, draft_tokens=draft_tokens, accepted_per_step=accepted_per_step)
        job.check()
        if sweep and tpot_ms is not None:
            raise decide.DecideError("--sweep sets TPOT itself (1000 / tokens/s per user): leave out --tpot-ms")
        ownership = ownership_overrides(years=years, utilization=utilization, pue=pue, usd_per_kwh=usd_per_kwh,
                                        colo_usd_per_kw_month=colo_usd_per_kw_month)
        with progress.shown(COPYING, quiet):
            con = _private_copy(workspace_for(data_dir, warehouse), ownership, prices)
            workload_id = decide.add_demand(con, job)
            if sweep:
                add_sweep(con, workload_id)
            progress.stage("rebuilding estimates with your demand")
            decide.rebuild(con, today())
        (_sweep_answer if sweep else _answer)(con, workload_id, pricing, platforms, as_json)
    except (decide.DecideError, WhatIfError) as exc:
        _fail("serve", exc)
