"""Answer a what-if question: evaluate every side, check the measurement against the hardware,
price every side on each price basis asked for, and compare each candidate with the baseline."""

from __future__ import annotations

from datetime import date

import duckdb

from warehouse.questions.plain_text import fmt_usd
from warehouse.questions.whatif import SideResult, evaluate_side, platform_row, prepare
from warehouse.questions.whatif_answer import Answer, Comparison, CostComparison
from warehouse.questions.whatif_checks import check_measurement
from warehouse.questions.whatif_inputs import Price, SideSpec, WhatIfError, check_numbers, pricing_bases
from warehouse.questions.whatif_notes import assumptions, comparison_notes
from warehouse.questions.whatif_price import PricePoint, combine, given_point, market_point


def _verdict(low: float, high: float, better_if_above: float = 1.0) -> str:
    if low > better_if_above:
        return "yes"
    if high < better_if_above:
        return "no"
    return "uncertain"


def _cost(basis: str, base: SideResult, cand: SideResult) -> CostComparison:
    b, c = base.prices[basis], cand.prices[basis]
    if b.usd_total and c.usd_total:
        ratio = c.usd_total / b.usd_total
    elif c.base_gpu_hours is not None and b.usd_total is None:
        # a price relative to the baseline's per GPU: the ratio needs no dollars
        ratio = c.base_gpu_hours / base.gpu_hours
    else:
        missing = "the baseline" if b.usd_total is None else "the candidate"
        return CostComparison(basis, None, None, f"unknown (no {basis} price for {missing})")
    price, speed = _break_even(ratio, c, cand)
    if cand.tokens_low is None:
        # no held-out evidence for this kind of estimate: the point answer, marked as such
        return CostComparison(basis, ratio, None, ("yes" if ratio < 1 else "no") + f" ({cand.error_basis})",
                              price, speed)
    # the candidate's throughput range carries the model's error; the baseline is measured
    low = ratio * cand.tokens_per_s / cand.tokens_high
    # a band of 100% or more reaches zero throughput: the cost has no upper bound (None)
    high = ratio * cand.tokens_per_s / cand.tokens_low if cand.tokens_low > 0 else None
    return CostComparison(basis, ratio, (low, high), _verdict(0.0 if high is None else 1 / high, 1 / low),
                          price, speed)


def _break_even(ratio: float, point: PricePoint, cand: SideResult) -> tuple[str, float | None]:
    """The candidate's price and speed at which it costs what the baseline does: its cost scales
    with its price and inversely with its speed, so both flip the verdict at 1 / ratio."""
    if not ratio:
        return "", None
    if point.multiple is not None and not cand.drafter_platform_id:
        price = f"{point.multiple / ratio:.2f}x the baseline's per-GPU price"
    elif point.usd_per_hour and not cand.drafter_platform_id:
        per_gpu = point.usd_per_hour / cand.n_gpus
        price = f"{fmt_usd(per_gpu / ratio)} per GPU-hour (priced at {fmt_usd(per_gpu)})"
    else:
        price = f"{1 / ratio:.2f}x its price"
    return price, ratio


def _compare(base: SideResult, cand: SideResult, bases: tuple[str, ...]) -> Comparison:
    speedup = base.time_h / cand.time_h
    if cand.tokens_low is None:
        faster, speed_range = ("yes" if speedup > 1 else "no") + f" ({cand.error_basis})", None
    else:
        speed_range = (cand.tokens_low / base.tokens_per_s, cand.tokens_high / base.tokens_per_s)
        faster = _verdict(*speed_range)
    costs = {basis: _cost(basis, base, cand) for basis in bases}
    first = costs[bases[0]]
    return Comparison(cand, speedup, speed_range, faster, costs, comparison_notes(base, cand),
                      first.ratio, first.ratio_range, first.cheaper)


def _price(con, workload_id: str, side: SideResult, spec: SideSpec, price: Price | None, basis: str,
           base: PricePoint | None, base_n: int) -> PricePoint:
    """One side on one basis; a two-platform side is its targets' part plus its drafters' part."""
    parts = [(spec, side.n_gpus - (side.drafter_gpus or 0))]
    if spec.drafter is not None:
        parts.append((spec.drafter, side.drafter_gpus))
    points = []
    for part, n in parts:
        chosen = part.price or price
        if chosen is not None and chosen.given:
            gpus_per_node = platform_row(con, part.platform_id)["gpus_per_node"]
            points.append(given_point(chosen, basis, n, gpus_per_node, side.time_h, base, base_n))
        else:
            points.append(market_point(con, workload_id, part.platform_id, n, basis, side.time_h, side.measured,
                                       part_of_pair=spec.drafter is not None))
    return points[0] if len(points) == 1 else combine(points, basis)


def _set_prices(side: SideResult, prices: dict[str, PricePoint]) -> None:
    side.prices = prices
    first = next(iter(prices.values()))
    side.price_basis, side.usd_per_hour, side.usd_total, side.price_note = (
        first.basis if first.source != "given" else "given", first.usd_per_hour, first.usd_total, first.note)


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
    pricing: str = "on_demand",
    ownership: dict[str, float] | None = None,
    run_date: date,
) -> Answer:
    if not candidates:
        raise WhatIfError("name at least one --candidate")
    check_numbers(measured_tokens_per_s, measured_days, units_per_token)
    if baseline.price is not None and baseline.price.kind == "relative":
        raise WhatIfError("the baseline's price cannot be relative to itself: give it per GPU-hour or per system-hour")
    bases = pricing_bases(pricing)
    context = prepare(con, workload_id, baseline, measured_tokens_per_s, measured_days, candidates, units_per_token,
                      run_date, dtype, ownership)
    workload = con.execute("select * from workload where workload_id = ?", [workload_id]).pl().to_dicts()[0]
    measured = context["measured_tokens_per_s"]
    base = evaluate_side(con, "baseline", workload, baseline, measured, context["baseline_dtype"])
    if measured is not None:
        base.peak_shares = check_measurement(con, workload, base, baseline)
    base_n = base.n_gpus
    _set_prices(base, {b: _price(con, workload_id, base, baseline, None, b, None, base_n) for b in bases})
    comparisons = []
    for index, spec in enumerate(candidates, start=1):
        side = evaluate_side(con, f"candidate {index}", workload, spec, None, dtype)
        _set_prices(side, {b: _price(con, workload_id, side, spec, candidate_price, b, base.prices[b], base_n)
                           for b in bases})
        comparisons.append(_compare(base, side, bases))
    return Answer(workload, base, comparisons, assumptions(con, workload, base, comparisons, bases), bases)
