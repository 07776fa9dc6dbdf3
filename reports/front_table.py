"""The front page's tables: per job, one row per price basis (on-demand, spot, reserved, owned,
API), the option the night's decision picked on that basis, said in words: the fleet, its
provider, time and cost, the change since the previous night, and how far the estimate is trusted.

Rows are `night_decision` rows (queries.front_rows), the same the prose headlines below say; the
change compares each with the previous night's row of the same job and basis.
"""

from __future__ import annotations

import math

import polars as pl

from reports.changes import basis_rank
from reports.markdown import escape, page_link, table
from reports.night import Night
from warehouse.questions.fleet_rows import fleet_text, shape
from warehouse.questions.plain_text import fmt_hours, fmt_number, fmt_pct, fmt_usd

# The seed questions' jobs lead: the DFlash drafter training of the first seed (would B200 be
# cheaper?) and the DeepSeek-R1 serving of the second (GB200 NVL72 or HGX B200?).
SEED_JOBS = ("dflash-qwen36-27b", "deepseek-r1-mtp")
BASIS_WORDS = {"on_demand": "on-demand", "spot": "spot", "reserved_1y": "reserved 1 year",
               "reserved_3y": "reserved 3 years", "owned": "owned", "api": "managed API"}
# What makes two nights' rows the same option (a move of its price is a change of the same row).
SAME_OPTION = ("platform_id", "fleet_gpus", "provider", "region", "instance_type")
# One unit per table, by its longest time: (from how many hours, the unit, hours per unit).
TIME_UNITS = ((48.0, "days", 24.0), (1.0, "hours", 1.0), (0.0, "minutes", 1 / 60))


def jobs(workloads: pl.DataFrame) -> list[dict]:
    """The night's jobs (not benchmark definitions): the seed questions' first, then the night's order."""
    rows = [w for w in workloads.iter_rows(named=True) if (w.get("purpose") or "job") == "job"]
    seeds = [w for seed in SEED_JOBS for w in rows if w["workload_id"] == seed]
    return seeds + [w for w in rows if w["workload_id"] not in SEED_JOBS]


def basis_rows(rows: pl.DataFrame) -> list[dict]:
    """One row per price basis: each choice's cheapest pick (not the fastest, not the measured run)."""
    if rows.height == 0:
        return []
    picked = [r for r in rows.iter_rows(named=True) if r["pick"] == "cheapest"]
    return sorted(picked, key=lambda r: basis_rank(r["pricing"]))


def section(workload: dict, rows: pl.DataFrame, before: pl.DataFrame, previous: Night | None,
            page: str) -> list[str]:
    """The job's heading, its table and the measured baseline if there is one."""
    out = [f"### {page_link(workload['name'], page)}\n"]
    shown, cells = basis_cells(workload, rows, before, previous)
    if not shown:
        return out + ["No priced option fits this job tonight.\n"]
    serving = workload["kind"] == "serving"
    since = f"since {previous.run_date}" if previous else "since the night before"
    columns = {"basis": ("basis", None), "fleet": ("platform and GPUs", None), "provider": ("provider", None)}
    if serving:
        out.append(_serving_caption(workload, shown))
        columns |= {"per_mtok": (f"$/M {workload.get('token_unit') or 'tokens'}", None),
                    "cost": ("total cost", None)}
    else:
        header, hours = time_unit([r["time_to_finish_h"] for r in shown])
        for c, r in zip(cells, shown, strict=True):
            c["time"] = _two_figures(r["time_to_finish_h"] / hours) if r["time_to_finish_h"] is not None else ""
        columns |= {"time": (f"time ({header})", None), "cost": ("total cost", None)}
    columns |= {"change": (since, None), "confidence": ("confidence", None)}
    frame = pl.DataFrame([{c: cell.get(c, "") for c in columns} for cell in cells],
                         schema=dict.fromkeys(columns, pl.String))
    out.append(table(frame, columns))
    baseline = next((r for r in rows.iter_rows(named=True) if r["choice"] == "measured run"), None)
    if baseline:
        out.append(escape(_baseline(baseline, serving)) + "\n")
    return out


def basis_cells(workload: dict, rows: pl.DataFrame, before: pl.DataFrame, previous: Night | None
                ) -> tuple[list[dict], list[dict]]:
    """The job's row per price basis and each one's cells in words, its change against `before`
    (the previous night's rows of the job)."""
    shown = basis_rows(rows)
    serving = workload["kind"] == "serving"
    was = {(r["choice"], r["pick"]): r for r in before.iter_rows(named=True)} if before.height else {}
    return shown, [_cells(r, was.get((r["choice"], r["pick"])), previous, serving) for r in shown]


def artifact_rows(workloads: pl.DataFrame, front_of, previous: Night | None) -> list[dict]:
    """The front page's tables, flat, for the Prefect table artifact: per job, one row per price
    basis, with the same words and the same change since the previous night.

    `front_of(workload_id)`: the job's rows tonight and the previous night's (NightData.front_of).
    """
    flat = []
    for workload in jobs(workloads):
        rows, before = front_of(workload["workload_id"])
        for row, cells in zip(*basis_cells(workload, rows, before, previous), strict=True):
            hours = row.get("time_to_finish_h")
            flat.append({"job": workload["workload_id"], "basis": cells["basis"], "platform and GPUs": cells["fleet"],
                         "provider": cells["provider"], "hours": None if hours is None else round(hours, 3),
                         "total cost": cells["cost"], "per million tokens": cells["per_mtok"],
                         "change": cells["change"], "confidence": cells["confidence"]})
    return flat


def fleet(row: dict) -> str:
    """The row's GPUs in words, from the platform shape the night kept beside it; the platform id
    where it kept none."""
    kept = row.get("gpus_per_node") is not None and row.get("platform_name")
    shapes = {row["platform_id"]: shape(row["platform_name"], row["gpus_per_node"], row["scaleup_domain_gpus"])
              } if kept else {}
    return fleet_text(row, shapes)


def confidence(row: dict) -> str:
    """How far the row's figure can be trusted, in words: its band and the results it was checked on."""
    if row["pricing"] == "api":
        return f"published price of {row['api_observed_at']}"
    if row.get("confidence") == "measured":  # this very layout was benchmarked: its band is the repeat spread
        return "measured at this size"
    p50, points = row.get("error_p50"), row.get("error_points")
    if p50 is not None:
        checked = f" on {points:,} checked result{'s' if points != 1 else ''}" if points else " (median error)"
        return f"±{fmt_pct(p50)}{checked}"
    if not points:
        return "no measured result: a wide guess"
    return f"{points} measured result{'s' if points != 1 else ''}: a wide guess"


def change(now: dict, before: dict | None, previous: Night | None, serving: bool) -> str:
    """The row against the previous night's row of the same job and basis."""
    if previous is None:
        return "first night"
    if before is None:
        return "new tonight"
    figure = "usd_per_mtok" if serving or now["pricing"] == "api" else "usd_total"
    old, new = before.get(figure), now.get(figure)
    same = all(before.get(c) == now.get(c) for c in SAME_OPTION)
    if old is None or new is None:
        return "" if same else f"was {before['provider']}"
    if same and fmt_usd(old) == fmt_usd(new):
        return "no change"
    moved = f"{_signed_pct(new / old - 1)} from {fmt_usd(old)}" if old else f"was {fmt_usd(old)}"
    return moved if same else f"{moved} (was {before['provider']})"


def _cells(row: dict, before: dict | None, previous: Night | None, serving: bool) -> dict:
    api = row["pricing"] == "api"
    return {
        "basis": BASIS_WORDS.get(row["pricing"], row["pricing"]),
        "fleet": "per token, no GPUs to run" if api else fleet(row),
        "provider": row["provider"] or "",
        "per_mtok": fmt_usd(row.get("usd_per_mtok")),
        "cost": fmt_usd(row.get("usd_total")),
        "change": change(row, before, previous, serving),
        "confidence": confidence(row),
    }


def _serving_caption(workload: dict, rows: list[dict]) -> str:
    """What a serving job's total cost covers: its tokens at its demand, the same time on every fleet."""
    hours = next((r["time_to_finish_h"] for r in rows if r.get("time_to_finish_h") is not None), None)
    unit = workload.get("token_unit") or "tokens"
    total = workload.get("total_tokens")
    tokens = (f"{total / 1e9:,.3g} billion {unit}" if total and total >= 1e9
              else f"{total / 1e6:,.3g} million {unit}" if total else unit)
    demand = workload.get("demand_tokens_per_s")
    rate = f" at {demand:,.0f} per second" if demand and demand >= 10 else f" at {fmt_number(demand)} per second" \
        if demand else ""
    took = f", {fmt_hours(hours)} on every fleet" if hours is not None else ""
    return escape(f"Each fleet is sized to the demand; total cost: serving {tokens}{rate}{took}.") + "\n"


def _baseline(row: dict, serving: bool) -> str:
    if serving:
        cost = f"{fmt_usd(row['usd_per_mtok'])} per million tokens"
    else:  # a measured run the catalog cannot price still says its time
        cost = ", ".join(t for t in (fmt_hours(row["time_to_finish_h"]), fmt_usd(row.get("usd_total"))) if t)
    return f"Measured baseline: {fleet(row)}, {cost}; {row.get('basis_note') or 'measured'}."


def _signed_pct(change: float) -> str:
    """A change in percent, a decimal only where it is under 10%."""
    return f"{100 * change:+.1f}%" if abs(change) < 0.095 else f"{100 * change:+.0f}%"


def time_unit(hours: list[float | None]) -> tuple[str, float]:
    """The unit a table of these times says them in (its longest picks it) and the hours in one."""
    longest = max((h for h in hours if h is not None), default=0.0)
    return next((name, per) for floor, name, per in TIME_UNITS if longest >= floor)


def _two_figures(value: float) -> str:
    """Two significant figures: what a band of tens of percent supports."""
    if value >= 100 or value <= 0:
        return f"{value:,.0f}"
    return f"{value:.{max(0, 1 - math.floor(math.log10(float(f'{value:.2g}'))))}f}"
