"""Render a what-if answer as plain text for the terminal."""

from __future__ import annotations

# the report's formats, so a figure reads the same in the report and in the terminal
from warehouse.questions.plain_text import fmt_hours, fmt_usd
from warehouse.questions.whatif import SideResult
from warehouse.questions.whatif_answer import Answer, Comparison

STAGE_NAMES = {"producer_rate": "target forward", "transfer_rate": "hidden states", "consumer_rate": "drafter training"}


def _where(side: SideResult) -> str:
    """The side's GPUs in words, then the platforms as a side names them and the precision."""
    platforms = side.platform_id + (f" + {side.drafter_platform_id}" if side.drafter_platform_id else "")
    return f"{side.fleet} [{platforms}, {side.dtype}]"


def _roles(side: SideResult) -> list[str]:
    lines = []
    if side.stages:
        stages = ", ".join(f"{STAGE_NAMES[k]} {v:,.0f}/s" for k, v in side.stages.items() if k != "transfer_rate")
        pace = ("each GPU runs both in turn: 1/(1/target + 1/drafter)" if side.placement == "shared"
                else "the slowest sets the pace")
        lines.append(f"  stages      {stages}  ({pace})")
    if side.transfer:
        t = side.transfer
        lines.append(f"  hidden      {t['needed_gbs']:,.2f} GB/s needed of {t['capacity_gbs']:,.1f} GB/s ({t['link']})")
    if len(side.splits) > 1:
        shown = ", ".join(f"{s} {t:,.0f}/s" for s, t, _ in side.splits[:6])
        title = "drafters" if side.drafter_platform_id else "role splits"
        lines.append(f"  {title:<11} {shown}{' ...' if len(side.splits) > 6 else ''}; best {side.splits[0][0]}")
    if side.why_shared:
        lines.append(f"  why shared  {side.why_shared}")
    return lines


def _label(side: SideResult, basis: str, bases: int) -> str:
    """A price's label says where it came from: a price the user gave is theirs, not a market basis."""
    if side.prices.get(basis) is None or side.prices[basis].source != "given":
        return basis
    return "your price" if bases == 1 else f"your price ({basis})"


def _prices(side: SideResult) -> list[str]:
    lines = []
    for basis, p in side.prices.items():
        cost = f"{fmt_usd(p.usd_total)} at {fmt_usd(p.usd_per_hour)}/h  " if p.usd_total is not None else ""
        lines.append(f"  {_label(side, basis, len(side.prices)):<11} {cost}{p.note}")
    return lines


def _side(side: SideResult) -> list[str]:
    rate = f"{side.tokens_per_s:,.0f} tokens/s"
    if not side.measured and side.tokens_low is not None:
        rate += f" (range {side.tokens_low:,.0f}-{side.tokens_high:,.0f}; {side.error_basis})"
    elif not side.measured:
        rate += f" (no error range: {side.error_basis})"
    basis = side.basis if side.basis.startswith(side.confidence) else f"{side.confidence}: {side.basis}"
    return [
        f"{side.label}: {_where(side)}, {side.layout}",
        f"  throughput  {rate}; {basis}",
        f"  bottleneck  {side.bottleneck}",
        *_roles(side),
        f"  time        {fmt_hours(side.time_h)}   GPU-hours {side.gpu_hours:,.0f}",
        *_prices(side),
    ]


def _verdicts(c: Comparison, baseline: SideResult) -> list[str]:
    speed = f"{c.speedup:.2f}x" + (f" ({c.speedup_range[0]:.2f}-{c.speedup_range[1]:.2f}x)" if c.speedup_range else "")
    lines = [f"  vs baseline {speed} the speed -> faster? {c.faster}"]
    for basis, cost in c.costs.items():
        if cost.ratio is None:
            lines.append(f"  {_label(c.candidate, basis, len(c.costs)):<11} cheaper? {cost.cheaper}")
            continue
        span = _ratio_span(cost.ratio_range)
        lines.append(f"  {_label(c.candidate, basis, len(c.costs)):<11} {cost.ratio:.2f}x the cost{span} -> "
                     f"cheaper? {cost.cheaper}")
        if cost.break_even_price:
            lines.append(f"  {'':<11} {_break_even_words(cost)}")
    if c.candidate.bottleneck != baseline.bottleneck:
        lines.append(f"  bottleneck shifts: {baseline.bottleneck} -> {c.candidate.bottleneck}")
    lines += [f"  note: {n}" for n in c.notes]
    return lines


def _break_even_words(cost) -> str:
    """Where the cost verdict flips, in the candidate's price and in its speed."""
    speed = cost.break_even_speed
    if cost.ratio < 1:
        return (f"stays cheaper below {cost.break_even_price}, or above {speed:.0%} of the speed estimated "
                f"(the model {1 - speed:.0%} optimistic)")
    return f"would be cheaper below {cost.break_even_price}, or at {speed:.2f}x the speed estimated"


def render(answer: Answer) -> str:
    out = [f"What if: {answer.workload['name']} ({answer.workload['workload_id']})",
           f"Price basis: {', '.join(answer.pricing)}", ""]
    out += _side(answer.baseline)
    for c in answer.comparisons:
        out += [""] + _side(c.candidate) + _verdicts(c, answer.baseline)
    out += ["", "Assumptions:"] + [f"- {a}" for a in answer.assumptions]
    return "\n".join(out)


def _ratio_span(span: tuple[float, float | None] | None) -> str:
    """A cost ratio's range; one with no upper bound (a band reaching zero throughput) says so."""
    if span is None:
        return ""
    low, high = span
    return f" ({low:.2f}x or more)" if high is None else f" ({low:.2f}-{high:.2f}x)"
