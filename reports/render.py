"""Render the dated comparison report from the warehouse."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb

from reports import queries
from reports.markdown import fmt_hours, fmt_number, fmt_pct, fmt_usd, table
from warehouse.observations import STALE_AFTER_DAYS

OPTION_COLUMNS = {
    "platform_id": ("platform", None),
    "n_gpus": ("GPUs", None),
    "layout": ("layout", None),
    "bottleneck": ("bottleneck", None),
    "tokens_per_s": ("tokens/s", fmt_number),
    "time_to_finish_h": ("time", fmt_hours),
    "usd_total": ("cost", fmt_usd),
    "usd_per_mtok": ("$/M tok", fmt_usd),
    "provider": ("provider", None),
    "instance_type": ("instance", None),
    "pricing": ("pricing", None),
    "confidence": ("confidence", None),
    "error_p50": ("± (median)", fmt_pct),
}


def _headline(option: dict, what: str) -> str:
    band = f"±{fmt_pct(option['error_p50'])} median error" if option.get("error_p50") is not None else ""
    return (
        f"- **{what}:** {option['n_gpus']}x {option['platform_id']} ({option['layout']}) from "
        f"{option['provider']} {option['instance_type']} ({option['pricing']}): "
        f"{fmt_hours(option['time_to_finish_h'])}, {fmt_usd(option['usd_total'])}, "
        f"{fmt_number(option['tokens_per_s'])} tokens/s; bottleneck: {option['bottleneck']}; "
        f"{option['confidence']} {band}"
    )


def workload_section(con, workload: dict) -> str:
    wid = workload["workload_id"]
    parts = [f"### {workload['name']} (`{wid}`, {workload['kind']})\n"]
    fastest = queries.best_options(con, wid, "time_to_finish_h, usd_total", 1)
    cheapest = queries.best_options(con, wid, "usd_total, time_to_finish_h", 1)
    if fastest.height == 0:
        parts.append("No priced option fits this workload tonight.\n")
    else:
        parts.append(_headline(fastest.to_dicts()[0], "Fastest"))
        parts.append(_headline(cheapest.to_dicts()[0], "Cheapest"))
        parts.append(
            f"\nJob: {fmt_number(workload['total_tokens'])} {workload['token_unit'] or 'tokens'}. "
            "Top options by cost (best per platform and pricing model):\n"
        )
        parts.append(table(queries.best_options(con, wid, "usd_total, time_to_finish_h", 8), OPTION_COLUMNS))
    if workload["kind"] == "serving":
        api = queries.api_baseline(con, wid)
        if api.height:
            a = api.to_dicts()[0]
            verdict = (
                "cheaper than self-hosting" if a["self_hosted_usd_per_mtok"] is None
                or a["api_usd_per_mtok_output"] < a["self_hosted_usd_per_mtok"] else "dearer than the best option above"
            )
            parts.append(
                f"Managed-API baseline: {a['provider']} at {fmt_usd(a['api_usd_per_mtok_output'])} per million output "
                f"tokens, input included at this workload's input/output ratio (price of {a['observed_at']}): "
                f"{verdict}.\n"
            )
    refused = queries.refusals(con, wid)
    if refused.height:
        parts.append("Refused (does not fit on any GPU count tried):\n")
        parts.append(table(refused, {"platform_id": ("platform", None), "reason": ("why", None)}))
    return "\n".join(parts) + "\n"


def render(con: duckdb.DuckDBPyConnection, run_date: date) -> str:
    summary = queries.run_summary(con, run_date)
    out = [f"# gpucalc report — {run_date.isoformat()}\n"]
    if summary:
        out.append(
            f"Run `{summary['run_id']}` ({summary['mode']}), status **{summary['status']}**: "
            f"{summary['price_rows']} price quotes and {summary['benchmark_rows']} benchmark results loaded, "
            f"{summary['rejected_rows']} rows rejected, {summary['estimate_rows']:,} priced estimates.\n"
        )
    out.append(
        "Every estimate is a roofline model (compute, memory and communication time per stage; the "
        "slowest is the bottleneck) calibrated on measured benchmarks. `confidence` says whether the "
        "throughput was measured on that GPU, calibrated from other GPUs, or rests on default "
        "efficiencies; `±` is the median absolute error of that confidence level in the backtest.\n"
    )
    out.append("## Options per workload\n")
    for workload in queries.workloads(con).iter_rows(named=True):
        out.append(workload_section(con, workload))
    previous, changes = queries.changes_since_previous(con, run_date)
    out.append("## What changed since the previous run\n")
    if previous is None:
        out.append("This is the first run in this warehouse.\n")
    elif changes.height == 0:
        out.append(f"No best option moved by 1% or more since {previous}.\n")
    else:
        out.append(f"Best option per workload, platform and pricing model, against {previous} (moves of 1% or more):\n")
        out.append(table(changes, {
            "workload_id": ("workload", None), "platform_id": ("platform", None), "pricing": ("pricing", None),
            "before_usd": ("before", fmt_usd), "now_usd": ("now", fmt_usd), "change": ("change", fmt_pct),
            "before_provider": ("was from", None), "now_provider": ("now from", None),
        }))
    out.append("## How good the model is (leave-one-accelerator-out backtest)\n")
    out.append(
        table(
            queries.error_bands(con),
            {
                "kind": ("workload kind", None),
                "confidence": ("confidence", None),
                "error_p50": ("median abs. error", fmt_pct),
                "error_p90": ("90th pct", fmt_pct),
                "points": ("points", None),
                "basis": ("basis", None),
            },
        )
    )
    out.append("\nPer accelerator held out:\n")
    out.append(
        table(
            queries.backtest_by_gpu(con),
            {
                "kind": ("kind", None),
                "gpu_id": ("held-out GPU", None),
                "points": ("points", None),
                "median_ape": ("median abs. error", fmt_pct),
                "p90_ape": ("90th pct", fmt_pct),
            },
        )
    )
    out.append("\n## Freshness of the inputs\n")
    out.append(
        table(
            queries.freshness(con),
            {
                "data": ("table", None),
                "source": ("source", None),
                "rows": ("rows", None),
                "oldest": ("oldest", None),
                "newest": ("newest", None),
                "providers": ("providers", None),
            },
        )
    )
    status = queries.live_sources(con, run_date)
    out.append(
        f"\nLive sources (stale = no successful load in the last {STALE_AFTER_DAYS} days; a source that "
        "fails keeps its last good data):\n"
    )
    out.append(
        table(
            status,
            {
                "source": ("source", None),
                "tonight": ("tonight", None),
                "last_ok": ("last good", None),
                "rows_loaded": ("rows then", None),
                "stale": ("stale", lambda v: "stale" if v else "fresh"),
                "message": ("message", None),
            },
        )
    )
    out.append("\n## Rejected rows\n")
    out.append(
        table(
            queries.rejected(con, run_date),
            {
                "source": ("source", None),
                "target_table": ("table", None),
                "rule": ("rule", None),
                "rows": ("rows", None),
                "example": ("example", None),
            },
        )
    )
    out.append('\nEvery rejected row, with the row as received: `gpucalc sql "select * from rejected_row"`.\n')
    out.append("\n## Where every input came from\n")
    out.append(
        table(
            queries.price_sources(con),
            {
                "source": ("source", None),
                "source_ref": ("reference", None),
                "quotes": ("quotes", None),
                "observed_at": ("observed", None),
            },
        )
    )
    out.append(
        "\nAccelerator specs, platforms, model architectures and workloads: the bundled catalog "
        '(`sources/data/*.csv`, each row with its `source`; `gpucalc sql "select gpu_id, source from gpu"`). '
        "Benchmark results: `select source, source_ref from benchmark_result`.\n"
    )
    out.append("\n### Assumptions\n")
    out.append(
        table(
            queries.assumptions(con),
            {
                "name": ("name", None),
                "value": ("value", fmt_number),
                "unit": ("unit", None),
                "source": ("source", None),
            },
        )
    )
    return "\n".join(out)


def write_report(warehouse: str, reports_dir: Path, run_date: date) -> tuple[str, str]:
    con = duckdb.connect(warehouse, read_only=True)
    try:
        markdown = render(con, run_date)
    finally:
        con.close()
    folder = reports_dir / run_date.isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.md"
    path.write_text(markdown)
    return str(path), markdown
