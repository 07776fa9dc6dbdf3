"""Figures and decisions in plain words: what the terminal prints and the report escapes.

Both `gpucalc decide`/`whatif` and the nightly report say the same thing the same way, so the
wording lives below both (reports/ escapes it for markdown).
"""

from __future__ import annotations

import math

from warehouse.questions.decision_ranges import api_break_even, band_error, per_rate_range

# the provider of a price you gave (`--price`, warehouse/questions/your_price.py), named so wherever it ranks
YOUR_PRICE = "your price"


def fmt_count(n: int, noun: str) -> str:
    """'1 quote', '9 quotes': a count and its noun, plural but for one."""
    return f"{n} {noun if n == 1 else noun + 's'}"


def fmt_number(value, digits: int = 3) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:  # NaN
            return ""
        magnitude = abs(value)
        if magnitude >= 1e5:
            return f"{value:,.0f}"
        if magnitude >= 100:
            return f"{value:,.1f}"
        return f"{value:.{digits}g}"
    return str(value)


def fmt_approx(value: float) -> str:
    """A figure to two significant digits, with separators ('9,500', not '9,548.6'): a
    break-even carries its estimate's error, and more digits would claim a precision it lacks."""
    rounded = float(f"{value:.2g}")
    return f"{rounded:,.0f}" if abs(rounded) >= 10 else f"{rounded:g}"


def fmt_usd(value) -> str:
    return "" if value is None else (f"${value:,.0f}" if abs(value) >= 100 else f"${value:,.2f}")


def fmt_pct(value) -> str:
    return "" if value is None else f"{100 * value:.0f}%"


def fmt_signed_pct(value) -> str:
    return "" if value is None else f"{100 * value:+.1f}%"


def fmt_hours(value) -> str:
    if value is None:
        return ""
    if value >= 48:
        return f"{value / 24:.1f} d"
    if value >= 1:
        return f"{value:.1f} h"
    if value * 60 >= 0.5:
        return f"{value * 60:.0f} min"
    return f"{value * 3600:.0f} s" if value * 3600 >= 0.5 else "under a second"  # never "0 min"


# how an estimate was made, in a buyer's words (calibration_choice's confidence)
MADE = {"calibrated": "calibrated on measured results", "default": "uncalibrated (documented efficiencies)"}


def _band(row: dict) -> str:
    """How sure the figure is, in words a buyer reads: measured, or its median error against
    held-out results of its class, or that none checked it."""
    if row.get("confidence") == "measured":
        return "measured at this size"
    made = MADE.get(row.get("confidence"), row.get("confidence") or "estimated")
    if row.get("error_p50") is None:
        return f"{made}; fewer than 5 checked results of its kind: a wide guess"
    return f"{made}; median error ±{fmt_pct(row['error_p50'])} against checked results of its kind"


def _span(figure: float, error: float, fmt) -> str:
    """A figure paid per unit of throughput over the band, in its own format."""
    low, high = per_rate_range(figure, error)
    return f"{fmt(low)} to {fmt(high)}" if high is not None else f"{fmt(low)} or more"


def _range_text(d: dict, serving: bool) -> str:
    """The row's cost (and for a job run to its end, its time) over its p90 error band; nothing
    where it has no band (_band says so)."""
    error = band_error(d)
    figures = ("usd_per_mtok",) if serving else ("time_to_finish_h", "usd_total")
    if error is None or any(d.get(name) is None for name in figures):
        return ""
    spans = " and ".join(_span(d[name], error, fmt_hours if name == "time_to_finish_h" else fmt_usd)
                         for name in figures)
    return f"; {spans} within the ±{fmt_pct(error)} p90 error band"


def _api_text(d: dict, api: dict | None) -> str | None:
    """Where the managed API becomes the cheaper choice than this fleet (api_break_even)."""
    flip = api_break_even(d, api)
    if flip is None:
        return None
    who = f"the managed API ({fmt_usd(api['api_usd_per_mtok_output'])}/M) is cheaper"
    return (f"{who} at any demand" if flip == math.inf
            else f"{who} below {fmt_approx(flip)} {d.get('token_unit') or 'tokens'}/s")


def decision_text(d: dict, serving: bool, fleet: str | None = None, api: dict | None = None) -> tuple[str, str]:
    """A decision row in words, plain text: (what it is, what it says). Markdown and the
    terminal both print it (the headline escapes it). `fleet`: the fleet in words, said in
    place of "16x platform-id"; `api`: the managed API row a fleet sized to a demand is set
    against (decision_ranges.api_row)."""
    what = d["choice"].capitalize() + (f" ({d['pick']})" if d["choice"] == "rent on-demand" else "")
    if d["choice"] == "managed API":
        return "Managed API", (
            f"{d['provider']} at {fmt_usd(d['api_usd_per_mtok_output'])} per million output tokens, input included "
            f"at this workload's input/output ratio (price of {d['api_observed_at']})")
    gpus = d["fleet_gpus"] if d.get("fleet_gpus") is not None else d["n_gpus"]
    yours = d.get("provider") == YOUR_PRICE
    where = ("your quote" if yours else f"{d['provider']} {d['instance_type']}" if d.get("instance_type")
             else d["provider"])
    basis = f"{YOUR_PRICE}, as {d['pricing']}" if yours else d["pricing"]
    if (d.get("usd_per_mtok") if serving else d.get("usd_total")) is None:  # a measured system nobody prices
        cost = (f"{fmt_hours(d['time_to_finish_h'])}, " if not serving else "") + "unpriced"
    elif serving:
        unit = d["token_unit"] or "tokens"
        cost = f"{fmt_usd(d['usd_per_mtok'])} per million {unit} ({fmt_usd(d['usd_per_hour'])}/h)"
    else:
        cost = f"{fmt_hours(d['time_to_finish_h'])}, {fmt_usd(d['usd_total'])}"
    extra = []
    if serving and d.get("deployments") and d.get("unit_gpus"):
        load = f" at {fmt_pct(d['fleet_utilization'])} of its capacity" if d.get("fleet_utilization") else ""
        extra.append(f"fleet of {d['deployments']} replica{'s' if d['deployments'] != 1 else ''} of "
                     f"{d['unit_gpus']} GPU{'s' if d['unit_gpus'] != 1 else ''}{load}")
    if d["choice"] in ("rent spot", "rent reserved", "buy") and d.get("cost_vs_on_demand") is not None:
        extra.append(f"{d['cost_vs_on_demand']:.2f}x the cheapest on-demand cost")
    if d["choice"] == "buy":
        be = d.get("break_even_utilization")
        extra.append("beats renting this layout on-demand if kept busy more than "
                     f"{fmt_pct(be)} of the time" if be is not None and be <= 1
                     else "no on-demand quote of this layout to compare" if be is None
                     else "never beats renting this layout on-demand at these prices")
    api_flip = _api_text(d, api)
    if api_flip:
        extra.append(api_flip)
    # your own provider's capacity is yours to know, not a provider's publication
    notes = ("basis_note",) if yours else ("basis_note", "capacity_note")
    extra += [d[note] for note in notes if d.get(note)]
    tail = f"; {'; '.join(extra)}" if extra else ""
    bottleneck = f"; bottleneck: {d['bottleneck']}" if d.get("bottleneck") else ""
    lead = (f"{fleet}, {d['layout']}," if fleet and d.get("layout") else fleet if fleet
            else f"{fmt_number(gpus)}x {d['platform_id']} ({d['layout'] or ''})")
    return what, f"{lead} from {where} [{basis}]: {cost}{_range_text(d, serving)}{bottleneck}; {_band(d)}{tail}"
