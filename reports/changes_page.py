"""The "what changed since the previous night" section (short, on the index) and page (all of it)."""

from __future__ import annotations

import polars as pl

from reports.changes import MOVE_THRESHOLD, Changes, changed_per_basis
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
    "workload_id": ("workload", None), "pricing": ("price basis", None), "was": ("was", None), "now": ("now", None),
    "cost": ("cost", None), "per_mtok": ("$ per million tokens", None),
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
        _winners_count(changes),
        _count(changes.sources.height, "source went stale or recovered", "sources went stale or recovered"),
    ]
    return f"since {changes.previous.run_date}: " + ", ".join(parts)


def index_section(changes: Changes) -> list[str]:
    out = [_title(changes), summary_line(changes)[0].upper() + summary_line(changes)[1:] + ".\n"]
    if changes.previous is None or changes.nothing:
        return out
    if changes.winners.height:
        out += ["Winners that changed (the cheapest option of each price basis), and why:\n",
                table(_winner_rows(changes.winners.head(SHOWN_ON_INDEX)), WINNER_COLUMNS)]
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
            "tonight, as tonight's warehouse knows them, so a backfill of an older day is not a change. A winner is "
            "a workload's cheapest option of one price basis (on-demand, spot, reserved, owned, ...) as each night "
            "published it, compared with the previous night's winner of the same basis (ties: the faster, then the "
            "option's platform, GPU count, provider, region, zone, instance).\n"
        )
        for title_, frame, columns in (
            ("Winners per price basis", _winner_rows(changes.winners), WINNER_COLUMNS),
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


def _winners_count(changes: Changes) -> str:
    """"3 winners changed: on_demand 3" (per price basis), or "0 winners changed"."""
    text = _count(changes.winners.height, "winner changed", "winners changed")
    per_basis = changed_per_basis(changes.winners)
    return text + (": " + " ".join(f"{basis} {n}" for basis, n in per_basis) if per_basis else "")


def _winner_rows(winners: pl.DataFrame) -> pl.DataFrame:
    """The winner changes with their cost (and cost per million tokens) as "was → now (change)"."""
    if winners.height == 0:
        return winners
    return pl.DataFrame([
        {**row, "cost": _was_now(row["usd_total_was"], row["usd_total"]),
         "per_mtok": _was_now(row["usd_per_mtok_was"], row["usd_per_mtok"])}
        for row in winners.iter_rows(named=True)
    ], schema={**winners.schema, "cost": pl.String, "per_mtok": pl.String})


def _was_now(was: float | None, now: float | None) -> str | None:
    if was is None and now is None:
        return None
    text = f"{fmt_usd(was) if was is not None else 'none'} → {fmt_usd(now) if now is not None else 'none'}"
    return text + (f" ({fmt_signed_pct(now / was - 1)})" if was and now is not None else "")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
