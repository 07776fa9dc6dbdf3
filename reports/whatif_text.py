"""Render a what-if answer as plain text for the terminal."""

from __future__ import annotations

from reports.markdown import fmt_hours, fmt_usd
from warehouse.whatif import SideResult
from warehouse.whatif_compare import Answer


def _side(side: SideResult) -> list[str]:
    cost = f"{fmt_usd(side.usd_total)} at {fmt_usd(side.usd_per_hour)}/h" if side.usd_total else "no price"
    rate = f"{side.tokens_per_s:,.0f} tokens/s"
    if not side.measured:
        rate += f" (range {side.tokens_low:,.0f}-{side.tokens_high:,.0f})"
    basis = side.basis if side.basis.startswith(side.confidence) else f"{side.confidence}: {side.basis}"
    lines = [
        f"{side.label}: {side.n_gpus}x {side.platform_id} [{side.gpu_id}, {side.dtype}], {side.layout}",
        f"  throughput  {rate}; {basis}",
        f"  bottleneck  {side.bottleneck}",
        f"  time        {fmt_hours(side.time_h)}   GPU-hours {side.gpu_hours:,.0f}   cost {cost}",
        f"  price       {side.price_note}",
    ]
    if side.stages:
        stages = ", ".join(f"{k.replace('_rate', '')} {v:,.0f}/s" for k, v in side.stages.items())
        lines.append(f"  stages      {stages}  (the slowest sets the pace)")
    if len(side.splits) > 1:
        shown = ", ".join(f"{s} {t:,.0f}/s" for s, t, _ in side.splits[:6])
        lines.append(f"  role splits {shown}{' ...' if len(side.splits) > 6 else ''}; best {side.splits[0][0]}")
    return lines


def render(answer: Answer) -> str:
    out = [f"What if: {answer.workload['name']} ({answer.workload['workload_id']})", ""]
    out += _side(answer.baseline)
    for c in answer.comparisons:
        out += [""] + _side(c.candidate)
        speed = f"{c.speedup:.2f}x ({c.speedup_range[0]:.2f}-{c.speedup_range[1]:.2f}x)"
        out.append(f"  vs baseline {speed} the speed -> faster? {c.faster}")
        if c.cost_ratio is not None:
            low, high = c.cost_ratio_range
            out.append(f"              {c.cost_ratio:.2f}x the cost ({low:.2f}-{high:.2f}x) -> cheaper? {c.cheaper}")
        else:
            out.append(f"              cheaper? {c.cheaper}")
        if c.candidate.bottleneck != answer.baseline.bottleneck:
            out.append(f"  bottleneck shifts: {answer.baseline.bottleneck} -> {c.candidate.bottleneck}")
    out += ["", "Assumptions:"] + [f"- {a}" for a in answer.assumptions]
    return "\n".join(out)
