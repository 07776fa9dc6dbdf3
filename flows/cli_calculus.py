"""Model commands: whatif, predict, backtest."""

from __future__ import annotations

from pathlib import Path
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

# Help texts go through Rich markup: "[/" or "[@" would open a tag, so no square brackets here.
SIDE_HELP = (
    "PLATFORM:N/LAYOUT@PRICE (all but PLATFORM optional). LAYOUT of a role pipeline: P+C (P target GPUs, "
    "C drafter GPUs, e.g. 3+1) or shared (target and drafter on every GPU). Drafters on another GPU type: "
    "TARGETS+DRAFTERS, e.g. hgx-b200-8:4+l40s-8:2. PRICE: 3.4x (per GPU, relative to the baseline), "
    "5.20/gpu-h or 40/system-h, labelled given."
)


@app.command()
def whatif(
    workload: Annotated[str, typer.Option("--workload", "-w", help="Workload id, e.g. dflash-qwen36-27b.")],
    baseline: Annotated[str, typer.Option("--baseline", "-b", help="What you run on now: " + SIDE_HELP)],
    candidate: Annotated[list[str], typer.Option("--candidate", "-c", help="What to compare; repeatable. Same form.")],
    measured: Annotated[float | None, typer.Option(help="Measured baseline throughput, tokens/s.")] = None,
    measured_days: Annotated[float | None, typer.Option(help="Measured time to finish the whole job, days.")] = None,
    price: Annotated[
        str | None,
        typer.Option(help="Candidates without their own PRICE: 3.4x, 5.2/gpu-h, 40/system-h or market (default)."),
    ] = None,
    pricing: Annotated[
        str,
        typer.Option(help="Price basis of market prices: on_demand (default), spot, reserved_1y, reserved_3y, "
                     "owned, or all (each side by side, never mixed)."),
    ] = "on_demand",
    years: Years = None,
    utilization: Utilization = None,
    pue: Pue = None,
    usd_per_kwh: UsdPerKwh = None,
    colo_usd_per_kw_month: Colo = None,
    units_per_token: Annotated[
        float | None, typer.Option(help="Role pipelines: consumer units (draft positions) per target token.")
    ] = None,
    dtype: Annotated[
        str | None, typer.Option(help="Run the candidates in fp4, fp8 or bf16 (a measured baseline keeps its own).")
    ] = None,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the answer as JSON, every price with its basis.")
    ] = False,
    quiet: Quiet = False,
) -> None:
    """Compare a measured baseline with candidate platforms: time, cost per price basis, bottleneck, range.

    A measurement the hardware cannot have made (more FLOP/s than its dense peak) is refused with
    the arithmetic. Owned costs take their defaults from assumptions.csv (and your
    catalog/assumptions.csv); the flags change them for this answer only.
    """
    import dataclasses
    import json

    from sources.kit.clock import today
    from warehouse.questions.whatif_compare import answer
    from warehouse.questions.whatif_inputs import (
        Price,
        SideSpec,
        WhatIfError,
        check_numbers,
        ownership_overrides,
        pricing_bases,
    )
    from warehouse.questions.whatif_text import render

    try:
        # every input is checked before the warehouse is copied
        base_side, candidate_sides = SideSpec.parse(baseline), [SideSpec.parse(c) for c in candidate]
        candidate_price = Price.parse(price) if price else None
        check_numbers(measured, measured_days, units_per_token)
        pricing_bases(pricing)
        ownership = ownership_overrides(years=years, utilization=utilization, pue=pue, usd_per_kwh=usd_per_kwh,
                                        colo_usd_per_kw_month=colo_usd_per_kw_month)
        with progress.shown(COPYING, quiet):
            con = private_copy(workspace_for(data_dir, warehouse))
            progress.stage("estimating the baseline and every candidate")
            result = answer(
                con,
                workload,
                base_side,
                candidate_sides,
                measured_tokens_per_s=measured,
                measured_days=measured_days,
                units_per_token=units_per_token,
                candidate_price=candidate_price,
                dtype=dtype,
                pricing=pricing,
                ownership=ownership,
                run_date=today(),
            )
    except WhatIfError as exc:
        typer.echo(f"whatif: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(json.dumps(dataclasses.asdict(result), indent=1, default=str) if as_json else render(result))


@app.command()
def predict(
    cases: Annotated[Path, typer.Option("--cases", help="CSV in the columns of an MLPerf results table.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the predictions (CSV).")],
    holdout: Annotated[
        bool,
        typer.Option(
            "--holdout",
            help="Predict every case as if its own accelerator had never been measured: its "
            "results calibrate nothing, the backtest's trust and bands stay, so each measured "
            "point gets the backtest's own prediction (one recompute per GPU).",
        ),
    ] = False,
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    quiet: Quiet = False,
) -> None:
    """Predict benchmark results for every row of a CSV; rows it cannot model say why."""
    import polars as pl

    from sources.kit.clock import today
    from warehouse.questions.predict import predict as run_predict

    if not cases.is_file():
        _refuse(f"{cases} is not a file" if cases.exists() else f"no file at {cases}", "usage")
    try:
        table = pl.read_csv(cases, infer_schema_length=0)
    except (pl.exceptions.PolarsError, OSError) as exc:  # empty, a device, ragged or not text at all
        _refuse(f"{cases} could not be read as a CSV of cases: {str(exc).splitlines()[0]}", "failed")
    if (why_not := _misnamed_out(out, cases)) is not None:
        _refuse(why_not, "usage")
    workspace = workspace_for(data_dir, warehouse)
    if (why_not := _unwritable_out(out, workspace)) is not None:
        _refuse(why_not, "usage")
    with progress.shown(COPYING, quiet):
        con = private_copy(workspace)
        progress.stage(f"predicting {table.height} cases" + (", one recompute per accelerator" if holdout else ""))
        result = run_predict(con, table, today(), holdout=holdout)
    result.write_csv(out)
    supported = result["predicted_tokens_per_s"].is_not_null().sum()
    typer.echo(f"{result.height} rows, {supported} predicted, {result.height - supported} with a reason -> {out}")


def _misnamed_out(out: Path, cases: Path) -> str | None:
    """Why `out` names no new CSV file predict could write, in one sentence, or None; said before
    any setting is read."""
    if not out.parent.is_dir():
        return f"no folder {out.parent} to write {out.name} into"
    if out.is_dir():
        return f"--out {out} is a folder: name the CSV file to write"
    if out.exists() and out.resolve() == cases.resolve():
        return f"--out {out} is the --cases file: name a new file, so the cases stay"
    return None


def _unwritable_out(out: Path, workspace: Workspace) -> str | None:
    """Why predict must not write `out`, in one sentence, or None: it may hold only predictions."""
    from warehouse.questions.predict import written_by_predict
    from warehouse.store.protected_paths import kept_state_reason

    reason = kept_state_reason(out, workspace)
    if reason is not None:
        return f"--out {reason}; name a file outside it"
    if out.exists() and not written_by_predict(out):
        return f"--out {out} exists and is not a predictions CSV gpucalc wrote: name a new file or remove it first"
    return None


def _refuse(message: str, status: str) -> None:
    typer.echo(f"predict: {message}", err=True)
    raise typer.Exit(EXIT[status])


@app.command()
def backtest(
    data_dir: DataDir = None,
    warehouse: Warehouse = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the figures as JSON (errors as fractions).")
    ] = False,
    quiet: Quiet = False,
) -> None:
    """Leave-one-accelerator-out over the benchmark results: error per workload kind and GPU,
    beside a naive baseline, with the stated bands' coverage per class."""
    import json

    from sources.kit.clock import today
    from warehouse.build.rebuild import rebuild_estimates
    from warehouse.questions.backtest_figures import figures
    from warehouse.questions.backtest_text import render_figures

    with progress.shown(COPYING, quiet):
        con = private_copy(workspace_for(data_dir, warehouse))
        progress.stage("rebuilding estimates and the leave-one-accelerator-out backtest")
        rebuild_estimates(con, "backtest", today())
        progress.stage("summing up the errors")
        found = figures(con)
    typer.echo(json.dumps(found, indent=1, default=str) if as_json else render_figures(found))
