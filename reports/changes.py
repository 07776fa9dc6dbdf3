"""What changed since the previous night: price moves, offers that came or went, winners, sources.

Prices are compared as the later night knew them: each quote's latest observation on or
before the previous night's date against its latest on or before tonight's. A backfill of an
older day therefore never shows up as a change (it lands on both sides), and only what
happened between the two dates does. Winners (the cheapest option per workload and price basis:
on-demand, spot, reserved, owned, ...) come from each night's own snapshot, so they are what each
night published, and each basis's winner is compared with the previous night's winner of the same
basis: a new cheap on-demand quote moves the on-demand winner, whatever owned or spot cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from reports import queries
from reports.markdown import escape
from reports.night import Night, previous_night
from reports.queries import OPTION_KEY, QUOTE_KEY
from warehouse.questions.plain_text import fmt_hours, fmt_usd

MOVE_THRESHOLD = 0.02  # a price move of 2% or more (either way) is reported
SORT_DIGITS = 9  # costs and times are ranked at 9 significant digits, then by OPTION_KEY

# Each basis's winner: the option first in this order (ties: OPTION_KEY).
WINNER_ORDER = ["usd_total", "time_to_finish_h"]
# Price bases in the order they are told (any other basis follows, by name).
BASIS_ORDER = ["on_demand", "spot", "reserved_1y", "reserved_3y", "owned", "api"]


@dataclass
class Changes:
    previous: Night | None
    price_moves: pl.DataFrame = field(default_factory=pl.DataFrame)
    appeared: pl.DataFrame = field(default_factory=pl.DataFrame)
    vanished: pl.DataFrame = field(default_factory=pl.DataFrame)
    winners: pl.DataFrame = field(default_factory=pl.DataFrame)
    sources: pl.DataFrame = field(default_factory=pl.DataFrame)

    @property
    def nothing(self) -> bool:
        frames = (self.price_moves, self.appeared, self.vanished, self.winners, self.sources)
        return all(frame.height == 0 for frame in frames)


def ranked(options: pl.DataFrame, order: list[str]) -> pl.DataFrame:
    """Options in `order` (rounded, so last-bit float noise cannot reorder them), ties by OPTION_KEY."""
    keys = [pl.col(c).round_sig_figs(SORT_DIGITS) for c in order] + [pl.col(c) for c in OPTION_KEY]
    return options.sort(keys, nulls_last=True, maintain_order=True)


def winners(options: pl.DataFrame) -> pl.DataFrame:
    """Per workload and price basis (`pricing`), the cheapest option (ties: the faster, then OPTION_KEY)."""
    if options.height == 0:
        return options
    return ranked(options, WINNER_ORDER).group_by("workload_id", "pricing", maintain_order=True).first()


def basis_rank(pricing: str | None) -> tuple[int, str]:
    """Sort key of a price basis: BASIS_ORDER first, any other after, by name."""
    name = pricing or ""
    return (BASIS_ORDER.index(name) if name in BASIS_ORDER else len(BASIS_ORDER), name)


def changed_per_basis(winner_changes: pl.DataFrame) -> list[tuple[str, int]]:
    """(basis, how many workloads' winner of that basis changed), in BASIS_ORDER."""
    if winner_changes.height == 0:
        return []
    counts = winner_changes.group_by("pricing").len().rows()
    return sorted(((p, n) for p, n in counts), key=lambda pn: basis_rank(pn[0]))


def since_previous(con, night: Night) -> Changes:
    previous = previous_night(con, night)
    if previous is None:
        return Changes(None)
    known = queries.known_prices(con, night)
    before = queries.latest_prices(known, previous.run_date)
    now = queries.latest_prices(known, night.run_date)
    both = before.join(now, on=QUOTE_KEY, how="inner", nulls_equal=True, suffix="_now")
    moves = (
        both.with_columns((pl.col("usd_per_gpu_hour_now") / pl.col("usd_per_gpu_hour") - 1).alias("change"))
        .filter(pl.col("change").abs() >= MOVE_THRESHOLD)
        .sort([pl.col("change").abs().round_sig_figs(SORT_DIGITS), *QUOTE_KEY], descending=[True] + [False] * 6,
              nulls_last=True)
    )
    appeared = now.join(before, on=QUOTE_KEY, how="anti", nulls_equal=True)
    vanished = before.join(now, on=QUOTE_KEY, how="anti", nulls_equal=True)
    changes = Changes(previous, moves, appeared, vanished)
    changes.winners = _winner_changes(con, night, previous, changes)
    changes.sources = _source_changes(con, night, previous)
    return changes


def describe(option: dict) -> str:
    """An option in one line of plain text (escape it before it goes into markdown)."""
    where = " ".join(str(option[c]) for c in ("provider", "instance_type") if option.get(c))
    price = f", {fmt_usd(option['usd_per_gpu_hour'])}/GPU-h" if option.get("usd_per_gpu_hour") is not None else ""
    return (
        f"{option['n_gpus']}x {option['platform_id']} ({option['pricing']}, {where}{price}): "
        f"{fmt_usd(option['usd_total'])}, {fmt_hours(option['time_to_finish_h'])}"
    )


WINNER_SCHEMA = {
    "workload_id": pl.String, "pricing": pl.String, "was": pl.String, "now": pl.String,
    "provider": pl.String, "usd_per_gpu_hour": pl.Float64,  # the new winner's provider and price
    "usd_total_was": pl.Float64, "usd_total": pl.Float64, "change": pl.Float64,
    "usd_per_mtok_was": pl.Float64, "usd_per_mtok": pl.Float64, "why": pl.String,
}


def _winner_changes(con, night: Night, previous: Night, changes: Changes) -> pl.DataFrame:
    """Per workload and price basis whose winner is another option tonight: the old and the new winner."""
    now_options, before_options = queries.options(con, night), queries.options(con, previous)
    now, before = _by_key(winners(now_options)), _by_key(winners(before_options))
    calibration_now, calibration_before = queries.calibration_by_option(con, night), queries.calibration_by_option(
        con, previous)
    rows = []
    for key in sorted(before.keys() | now.keys(), key=lambda k: (k[0], basis_rank(k[1]))):
        was, is_now = before.get(key), now.get(key)
        if was and is_now and all(was[c] == is_now[c] for c in OPTION_KEY):
            continue
        why = []
        if was:
            why += _why(was, now_options, changes, calibration_before, calibration_now, "was")
        if is_now:
            why += _why(is_now, before_options, changes, calibration_now, calibration_before, "now")
        if not is_now:
            why.append(f"no {escape(key[1])} option tonight")
        if not was:
            why.append(f"no {escape(key[1])} option on {previous.run_date}")
        cost_was, cost_now = (was or {}).get("usd_total"), (is_now or {}).get("usd_total")
        rows.append({
            "workload_id": key[0], "pricing": key[1],
            "was": describe(was) if was else "none", "now": describe(is_now) if is_now else "none",
            "provider": (is_now or {}).get("provider"), "usd_per_gpu_hour": (is_now or {}).get("usd_per_gpu_hour"),
            "usd_total_was": cost_was, "usd_total": cost_now,
            "change": cost_now / cost_was - 1 if cost_was and cost_now is not None else None,
            "usd_per_mtok_was": (was or {}).get("usd_per_mtok"), "usd_per_mtok": (is_now or {}).get("usd_per_mtok"),
            "why": "; ".join(dict.fromkeys(why)) or "the ranking changed",  # markdown: its names are escaped
        })
    return pl.DataFrame(rows, schema=WINNER_SCHEMA)


def _by_key(frame: pl.DataFrame) -> dict[tuple[str, str], dict]:
    return {(r["workload_id"], r["pricing"]): r for r in frame.iter_rows(named=True)}


def _why(option: dict, other: pl.DataFrame, changes: Changes, calib_own: dict, calib_other: dict,
         side: str) -> list[str]:
    """Why `option`, a winner on one night ("was" or "now"), ranks differently on the `other` night's options."""
    quote = {"source": option["price_source"], **{c: option[c] for c in QUOTE_KEY if c != "source"}}
    name = escape(f"{option['provider']} {option['instance_type']} ({option['pricing']})")
    reasons = []
    move = changes.price_moves.filter(*[_equal(c, v) for c, v in quote.items()])
    if move.height:
        m = move.row(0, named=True)
        reasons.append(f"price of {name} moved {fmt_usd(m['usd_per_gpu_hour'])} → "
                       f"{fmt_usd(m['usd_per_gpu_hour_now'])} per GPU-hour")
    came_or_went = changes.vanished if side == "was" else changes.appeared
    if came_or_went.filter(*[_equal(c, v) for c, v in quote.items()]).height:
        reasons.append(f"{name} {'was withdrawn' if side == 'was' else 'is a new offer'}")
    same = other.filter(*[_equal(c, option[c]) for c in ["workload_id", *OPTION_KEY]])
    if same.height == 0:  # not the cheapest quote of its platform, GPU count and price basis on the other night
        if not reasons:
            reasons.append(f"{name} is no longer the cheapest quote for its platform" if side == "was"
                           else f"{name} was not an option before")
        return reasons
    then = same.row(0, named=True)
    if not move.height and _differs(option["usd_per_hour"], then["usd_per_hour"]):
        old, new = (then, option) if side == "now" else (option, then)
        reasons.append(f"{name} costs {fmt_usd(new['usd_per_hour'])}/h, was {fmt_usd(old['usd_per_hour'])}/h")
    if _differs(option["tokens_per_s"], then["tokens_per_s"]):
        reasons.append(_throughput_reason(option, calib_own, calib_other, side))
    return reasons


def _throughput_reason(option: dict, calib_own: dict, calib_other: dict, side: str) -> str:
    """A new benchmark (more calibration points), a new calibration, or the model itself."""
    key = (option["workload_id"], option["platform_id"], option["n_gpus"])
    before, after = (calib_other, calib_own) if side == "now" else (calib_own, calib_other)
    b, a = before.get(key), after.get(key)
    gpu = escape(option["gpu_id"])
    if b and a and b["points"] != a["points"]:
        return f"new benchmark results for {gpu} ({b['points']} → {a['points']} calibration points)"
    if b and a and (b["level"] != a["level"] or _differs(b["factor"], a["factor"])):
        return f"new calibration for {gpu}: {escape(a['basis'])} (factor {b['factor']:.3g} → {a['factor']:.3g})"
    return f"throughput estimate for {gpu} changed (model or catalog)"


def _source_changes(con, night: Night, previous: Night) -> pl.DataFrame:
    now = queries.live_sources(con, night).select("source", "stale", "last_ok", "tonight", "message")
    before = queries.live_sources(con, previous).select("source", pl.col("stale").alias("was_stale"))
    return (
        now.join(before, on="source", how="inner")
        .filter(pl.col("stale") != pl.col("was_stale"))
        .with_columns(
            pl.when(pl.col("stale")).then(pl.lit("went stale")).otherwise(pl.lit("recovered")).alias("change")
        )
        .sort("source")
    )


def _equal(column: str, value) -> pl.Expr:
    return pl.col(column).is_null() if value is None else pl.col(column) == value


def _differs(a, b) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return abs(a - b) > 1e-9 * max(abs(a), abs(b))
