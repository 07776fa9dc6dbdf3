"""Price a what-if side on one price basis: from the `estimate` view (the one place quotes,
ownership cost, instance rules and restart overheads meet a layout), or as the user gave it.

A side is never priced across bases: on-demand, spot, reserved and owned each get their own
figure, and a price the user gave is labelled "given" (in text "your price"), with the basis it
stands in for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from warehouse.questions.whatif_inputs import Price
from warehouse.store.sql_text import sql_text


@dataclass
class PricePoint:
    basis: str  # on_demand | spot | reserved_1y | reserved_3y | owned, or "given": a price the user gave
    source: str  # estimate (the warehouse's quotes and ownership model) | given | none
    usd_per_hour: float | None
    usd_total: float | None
    note: str
    # hours billed per hour of steady work on this basis, as the estimate counts them (spot
    # restarts); 1.0 where it adds nothing
    time_factor: float = 1.0
    # a price given relative to the baseline's per-GPU price, counted in baseline GPU-hours: the
    # cost ratio holds even when the baseline has no price on this basis
    base_gpu_hours: float | None = None
    # a given price: the basis asked for, whose market price it stands in for
    stands_in_for: str | None = None
    # a price given as a multiple of the baseline's per-GPU price: that multiple
    multiple: float | None = None


def estimate_row(con, workload_id: str | None, platform_id: str, n_gpus: int, basis: str) -> dict | None:
    """The cheapest estimate row on `basis` for `n_gpus` of the platform running the workload;
    with no workload, any estimate row held by one instance (a part of a two-platform side)."""
    if workload_id is not None:
        scope, params = "e.workload_id = ?", [platform_id, n_gpus, workload_id, basis]
    else:
        scope, params = "e.instances = 1", [platform_id, n_gpus, basis]
    sql = sql_text("warehouse.questions", "whatif_estimate_row.sql", scope=scope)
    frame = con.execute(sql, params).pl()
    return frame.to_dicts()[0] if frame.height else None


def _basis_note(con, basis: str, time_factor: float, measured: bool) -> str:
    if basis == "spot":
        if measured:
            extra = "the measured time holds its own restarts"
        elif time_factor > 1.0001:
            extra = f"the estimate adds {time_factor - 1:.0%} time for restarts"
        else:
            extra = "the estimate adds no restart time: checkpoint often"
        return f"spot: can be interrupted; {extra}"
    if basis.startswith("reserved"):
        term = "1-year" if basis.endswith("1y") else "3-year"
        return f"reserved: the hourly rate of a {term} commitment; only the job's hours are counted"
    if basis == "owned":
        a = dict(con.execute("select name, value from assumption").fetchall())
        return (f"owned: capex over {a.get('ownership_years', 0):g} years at "
                f"{a.get('ownership_utilization', 0):.0%} utilisation + power x PUE {a.get('pue', 0):g} at "
                f"{a.get('usd_per_kwh', 0):g} USD/kWh + colocation {a.get('colo_usd_per_kw_month', 0):g} USD/kW-month")
    return "on-demand list price"


def market_point(con, workload_id: str, platform_id: str, n_gpus: int, basis: str, time_h: float,
                 measured: bool, part_of_pair: bool = False) -> PricePoint:
    """n GPUs of a platform on `basis`, priced by the estimate view."""
    row = estimate_row(con, workload_id, platform_id, n_gpus, basis)
    if row is None and part_of_pair:
        row = estimate_row(con, None, platform_id, n_gpus, basis)
    if row is None:
        missing = f"no {basis} price in the estimates for {n_gpus} GPUs of {platform_id}"
        return PricePoint(basis, "none", None, None, missing)
    # a measured duration already holds the restarts it had
    factor = 1.0 if measured else float(row["billed_time_factor"] or 1.0)
    where = f"{row['provider']} {row['instance_type']} x{row['instances']:g} ({row['region']})"
    note = f"{where}; {_basis_note(con, basis, factor, measured)}"
    if row.get("capacity_note"):
        note += f"; {row['capacity_note']}"
    return PricePoint(basis, "estimate", row["usd_per_hour"], row["usd_per_hour"] * time_h * factor, note, factor)


def given_point(price: Price, basis: str, n_gpus: int, gpus_per_node: int, time_h: float,
                base: PricePoint | None, base_n: int) -> PricePoint:
    """A price the user gave: per GPU-hour, per system-hour, or a multiple of the baseline's
    per-GPU price on the same basis."""
    if price.kind == "gpu_hour":
        usd = price.value * n_gpus
        return PricePoint("given", "given", usd, usd * time_h, f"{price.value:.2f} USD per GPU-hour, in place "
                          f"of the {basis} price", stands_in_for=basis)
    if price.kind == "system_hour":
        systems = math.ceil(n_gpus / gpus_per_node)
        usd = price.value * systems
        note = f"{systems} system(s) x {price.value:.2f} USD per hour, in place of the {basis} price"
        return PricePoint("given", "given", usd, usd * time_h, note, stands_in_for=basis)
    base_gpu_hours = price.value * n_gpus * time_h
    if base is None or base.usd_per_hour is None:
        return PricePoint("given", "given", None, None,
                          f"{price.value:g}x the baseline's per-GPU price, in place of the {basis} price (the "
                          f"baseline has no {basis} price, so only the cost ratio is known)",
                          base_gpu_hours=base_gpu_hours, stands_in_for=basis, multiple=price.value)
    per_gpu = price.value * base.usd_per_hour / base_n
    return PricePoint("given", "given", per_gpu * n_gpus, per_gpu * n_gpus * time_h,
                      f"{price.value:g}x the baseline's {basis} per-GPU price = {per_gpu:.2f} USD per GPU-hour, "
                      f"in place of the {basis} price", base_gpu_hours=base_gpu_hours, stands_in_for=basis,
                      multiple=price.value)


def combine(parts: list[PricePoint], basis: str) -> PricePoint:
    """A two-platform side: the targets' part plus the drafters' part."""
    usd = [p.usd_per_hour for p in parts]
    totals = [p.usd_total for p in parts]
    base_hours = [p.base_gpu_hours for p in parts]
    given = all(p.source == "given" for p in parts)
    return PricePoint(
        "given" if given else basis,
        "given" if given else "+".join(sorted({p.source for p in parts})),
        sum(usd) if None not in usd else None,
        sum(totals) if None not in totals else None,
        " + ".join(f"[{p.note}]" for p in parts),
        max(p.time_factor for p in parts),
        sum(base_hours) if None not in base_hours else None,
        basis if any(p.source == "given" for p in parts) else None,
    )
