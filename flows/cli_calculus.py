"""Model commands: whatif, predict, backtest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from flows.cli_app import DataDir, app, warehouse_location


@app.command()
def whatif(
    workload: Annotated[str, typer.Option("--workload", "-w", help="Workload id, e.g. dflash-qwen36-27b.")],
    baseline: Annotated[str, typer.Option("--baseline", "-b", help="PLATFORM[:N][/SPLIT][@PRICE] you run on now.")],
    candidate: Annotated[
        list[str], typer.Option("--candidate", "-c", help="PLATFORM[:N][/SPLIT][@PRICE] to compare; repeatable.")
    ],
    measured: Annotated[float | None, typer.Option(help="Measured baseline throughput, tokens/s.")] = None,
    measured_days: Annotated[float | None, typer.Option(help="Measured time to finish the whole job, days.")] = None,
    price: Annotated[
        str | None, typer.Option(help="Candidates' price: 3.4x | 5.2/gpu-h | 40/system-h | market (default).")
    ] = None,
    units_per_token: Annotated[
        float | None, typer.Option(help="Role pipelines: consumer units (draft positions) per target token.")
    ] = None,
    dtype: Annotated[
        str | None, typer.Option(help="Run the candidates in fp4 | fp8 | bf16 (a measured baseline keeps its own).")
    ] = None,
    data_dir: DataDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
) -> None:
    """Compare a measured baseline with candidate platforms: time, cost, bottleneck, range."""
    import dataclasses
    import json

    from reports.whatif_text import render
    from warehouse.scratch import scratch_copy, today
    from warehouse.whatif_compare import answer
    from warehouse.whatif_inputs import Price, SideSpec, WhatIfError

    try:
        result = answer(
            scratch_copy(warehouse_location(data_dir)),
            workload,
            SideSpec.parse(baseline),
            [SideSpec.parse(c) for c in candidate],
            measured_tokens_per_s=measured,
            measured_days=measured_days,
            units_per_token=units_per_token,
            candidate_price=Price.parse(price) if price else None,
            dtype=dtype,
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
    data_dir: DataDir = None,
) -> None:
    """Predict benchmark results for every row of a CSV; rows it cannot model say why."""
    import polars as pl

    from warehouse.predict import predict as run_predict
    from warehouse.scratch import scratch_copy, today

    table = pl.read_csv(cases, infer_schema_length=0)
    result = run_predict(scratch_copy(warehouse_location(data_dir)), table, today())
    result.write_csv(out)
    supported = result["predicted_tokens_per_s"].is_not_null().sum()
    typer.echo(f"{result.height} rows, {supported} predicted, {result.height - supported} with a reason -> {out}")


@app.command()
def backtest(data_dir: DataDir = None) -> None:
    """Leave-one-accelerator-out over the benchmark results: error per workload kind and GPU."""
    from reports.backtest_text import render
    from warehouse.rebuild import rebuild_estimates
    from warehouse.scratch import scratch_copy, today

    con = scratch_copy(warehouse_location(data_dir))
    rebuild_estimates(con, "backtest", today())
    typer.echo(render(con))
