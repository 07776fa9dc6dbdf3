"""Answer a what-if question: evaluate and price every side, compare each candidate with the
baseline, and list the assumptions the answer rests on."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb

from warehouse.whatif import SideResult, evaluate_side, prepare, price_side
from warehouse.whatif_inputs import Price, SideSpec, WhatIfError


@dataclass
class Comparison:
    candidate: SideResult
    speedup: float  # baseline time / candidate time
    speedup_range: tuple[float, float]
    cost_ratio: float | None  # candidate cost / baseline cost
    cost_ratio_range: tuple[float, float] | None
    faster: str  # "yes" | "no" | "uncertain"
    cheaper: str


@dataclass
class Answer:
    workload: dict
    baseline: SideResult
    comparisons: list[Comparison]
    assumptions: list[str] = field(default_factory=list)


def _verdict(low: float, high: float, better_if_above: float = 1.0) -> str:
    if low > better_if_above:
        return "yes"
    if high < better_if_above:
        return "no"
    return "uncertain"


def _compare(base: SideResult, cand: SideResult) -> Comparison:
    speedup = base.time_h / cand.time_h
    # the candidate's throughput range carries the model's error; the baseline is measured
    low, high = cand.tokens_low / base.tokens_per_s, cand.tokens_high / base.tokens_per_s
    cost_ratio = cost_range = None
    cheaper = "unknown (no price)"
    if base.usd_total and cand.usd_total:
        cost_ratio = cand.usd_total / base.usd_total
        cost_range = (
            cost_ratio * cand.tokens_per_s / cand.tokens_high,
            cost_ratio * cand.tokens_per_s / cand.tokens_low,
        )
        cheaper = _verdict(1 / cost_range[1], 1 / cost_range[0])
    return Comparison(cand, speedup, (low, high), cost_ratio, cost_range, _verdict(low, high), cheaper)


def answer(
    con: duckdb.DuckDBPyConnection,
    workload_id: str,
    baseline: SideSpec,
    candidates: list[SideSpec],
    *,
    measured_tokens_per_s: float | None = None,
    measured_days: float | None = None,
    units_per_token: float | None = None,
    candidate_price: Price | None = None,
    dtype: str | None = None,
    run_date: date,
) -> Answer:
    if not candidates:
        raise WhatIfError("name at least one --candidate")
    context = prepare(
        con, workload_id, baseline, measured_tokens_per_s, measured_days, candidates, units_per_token, run_date, dtype
    )
    workload = con.execute("select * from workload where workload_id = ?", [workload_id]).pl().to_dicts()[0]
    nodes = dict(con.execute("select platform_id, gpus_per_node from platform").fetchall())
    base = evaluate_side(
        con, "baseline", workload, baseline, context["measured_tokens_per_s"], context["baseline_dtype"]
    )
    price_side(con, base, baseline.price, None, nodes[base.platform_id], base.scaleup_group)
    base_gpu_hour = base.usd_per_hour / base.n_gpus if base.usd_per_hour else None
    comparisons = []
    for index, spec in enumerate(candidates, start=1):
        side = evaluate_side(con, f"candidate {index}", workload, spec, None, dtype)
        price_side(con, side, spec.price or candidate_price, base_gpu_hour, nodes[side.platform_id], side.scaleup_group)
        comparisons.append(_compare(base, side))
    return Answer(workload, base, comparisons, assumptions(con, workload, base, comparisons))


def assumptions(con, workload: dict, base: SideResult, comparisons: list[Comparison]) -> list[str]:
    assume = dict(con.execute("select name, value from assumption").fetchall())
    notes = [
        f"Job: {workload['total_tokens']:,.0f} {workload['token_unit'] or 'tokens'} in total "
        f"({workload['name']}); rates below count the same unit.",
        "Times are at the steady rate on both sides, as measured; the nightly estimates add "
        f"{assume.get('failed_work_overhead', 0):.0%} for failed and repeated work.",
        f"Baseline: {base.tokens_per_s:,.0f} tokens/s ({base.basis}) on {base.n_gpus}x {base.platform_id}, "
        f"layout {base.layout}.",
    ]
    if workload["kind"] == "role_pipeline":
        notes.append(
            f"Role pipeline: target forward {workload['producer_gflop_per_token']} GFLOP per target token, "
            f"{workload['transfer_bytes_per_token']:,.0f} bytes of hidden states per token moved to the drafter, "
            f"drafter training {workload['consumer_gflop_per_unit']} GFLOP per draft position and "
            f"{workload['units_per_token']} draft positions per target token (change with --units-per-token)."
        )
    for c in comparisons:
        notes.append(
            f"{c.candidate.label} ({c.candidate.n_gpus}x {c.candidate.platform_id}): throughput {c.candidate.basis}; "
            f"range = the model's 90th-percentile error in the backtest; price: {c.candidate.price_note or 'none'}."
        )
    notes.append(f"Baseline price: {base.price_note or 'none'}.")
    return notes
