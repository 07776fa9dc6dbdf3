"""The "what changed since the previous night" section (short, on the index) and page (all of it)."""

from __future__ import annotations

import polars as pl

from reports.changes import MOVE_THRESHOLD, Changes
from reports.markdown import Md, page_link, table
from warehouse.questions.plain_text import fmt_signed_pct, fmt_usd

SHOWN_ON_INDEX = 8  # rows of each table on the index; the changes page has them all

MOVE_COLUMNS = {
    "gpu": ("GPU", None), "source": ("source", None), "provider": ("provider", None), "region": ("region", None),
    "zone": ("zone", None), "instance_type": ("instance", None), "pricing": ("pricing", None),
    "usd_per_gpu_hour": ("was $/GPU-h", fmt_usd), "usd_per_gpu_hour_now": ("now $/GPU-h", fmt_usd),
    "change": ("change", fmt_signed_pct), "observed_at": ("was observed", str),
    "observed_at_now": ("now observed", str),
}
OFFER_COLUMNS = {
    "gpu": ("GPU", None), "source": ("source", None), "provider": ("provider", None), "region": ("region", None),
    "zone": ("zone", None), "instance_type": ("instance", None), "pricing": ("pricing", None),
    "usd_per_gpu_hour": ("$/GPU-h", fmt_usd), "observed_at": ("observed", str),
}
WINNER_COLUMNS = {
    "workload_id": ("workload", None), "criterion": ("winner", None), "was": ("was", None), "now": ("now", None),
    "why": ("why", Md),  # built by changes.py with every outside name escaped
}
SOURCE_COLUMNS = {
    "source": ("source", None), "change": ("change", None), "last_ok": ("last good load", str),
    "tonight": ("tonight", None), "message": ("message", None),
}


def summary_line(changes: Changes) -> str:
    """One line: how much changed (plain text, for the index and the history page)."""
    if changes.previous is None:
        return "first night in this warehouse: nothing to compare with"
    if changes.nothing:
        return f"nothing changed since {changes.previous.run_date}"
    parts = [
        _count(changes.price_moves.height, f"price move of {100 * MOVE_THRESHOLD:.0f}% or more",
               f"price moves of {100 * MOVE_THRESHOLD:.0f}% or more"),
        _count(changes.appeared.height, "offer appeared", "offers appeared"),
        _count(changes.vanished.height, "offer vanished", "offers vanished"),
        _count(changes.winners.height, "winner changed", "winners changed"),
        _count(changes.sources.height, "source went stale or recovered", "sources went stale or recovered"),
    ]
    return f"since {changes.previous.run_date}: " + ", ".join(parts)


def index_section(changes: Changes) -> list[str]:
    out = [_title(changes), summary_line(changes)[0].upper() + summary_line(changes)[1:] + ".\n"]
    if changes.previous is None or changes.nothing:
        return out
    if changes.winners.height:
        out += ["Winners that changed, and why:\n", table(changes.winners.head(SHOWN_ON_INDEX), WINNER_COLUMNS)]
        out += _more(changes.winners.height, "winners")
    if changes.price_moves.height:
        shown = changes.price_moves.head(SHOWN_ON_INDEX)
        out += ["Price moves (largest first):\n", table(shown, MOVE_COLUMNS)]
        out += _more(changes.price_moves.height, "price moves")
    if changes.sources.height:
        out += ["Sources:\n", table(changes.sources, SOURCE_COLUMNS)]
    out.append(f"Every change, offers that appeared or vanished included: {page_link('changes', 'changes.md')}.\n")
    return out


def page(changes: Changes, title: str) -> str:
    out = [f"# {title}\n", f"{page_link('Back to the report', 'index.md')}\n", _title(changes)]
    out.append(summary_line(changes)[0].upper() + summary_line(changes)[1:] + ".\n")
    if changes.previous is not None:
        out.append(
            "Prices are compared quote by quote (source, provider, region, zone, instance, price basis): each "
            f"quote's latest observation on or before {changes.previous.run_date} against its latest on or before "
            "tonight, as tonight's warehouse knows them, so a backfill of an older day is not a change. Winners are "
            "each workload's cheapest and fastest option as each night published them (ties: the option's platform, "
            "GPU count, price basis, provider, region, zone, instance).\n"
        )
        for title_, frame, columns in (
            ("Winners", changes.winners, WINNER_COLUMNS),
            (f"Price moves of {100 * MOVE_THRESHOLD:.0f}% or more", changes.price_moves, MOVE_COLUMNS),
            ("Offers that appeared", changes.appeared, OFFER_COLUMNS),
            ("Offers that vanished", changes.vanished, OFFER_COLUMNS),
            ("Sources that went stale or recovered", changes.sources, SOURCE_COLUMNS),
        ):
            out += [f"## {title_}\n", table(frame if frame.height else pl.DataFrame(), columns)]
    return "\n".join(out)


def _more(total: int, what: str) -> list[str]:
    return [f"... and {total - SHOWN_ON_INDEX} more {what} on {page_link('the changes page', 'changes.md')}.\n"] \
        if total > SHOWN_ON_INDEX else []


def _title(changes: Changes) -> str:
    since = f" ({changes.previous.run_date})" if changes.previous else ""
    return f"## What changed since the previous night{since}\n"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
