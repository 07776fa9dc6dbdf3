"""What if we ran this job elsewhere? A measured baseline against candidate platforms.

The baseline's measured throughput becomes a benchmark result in a scratch copy of the
warehouse, so it calibrates the model exactly as any measurement does; the candidates are
then estimated by the same SQL models, priced, and compared. Nothing here writes the
nightly warehouse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date

import duckdb

from warehouse.rebuild import rebuild_estimates
from warehouse.whatif_inputs import Price, SideSpec, WhatIfError


@dataclass
class SideResult:
    label: str
    platform_id: str
    gpu_id: str
    n_gpus: int
    layout: str
    bottleneck: str
    tokens_per_s: float
    tokens_low: float
    tokens_high: float
    time_h: float
    gpu_hours: float
    usd_per_hour: float | None
    usd_total: float | None
    price_note: str
    confidence: str
    basis: str
    measured: bool = False
    scaleup_group: int = 1
    dtype: str = ""
    stages: dict[str, float] = field(default_factory=dict)
    splits: list[tuple[str, float, str]] = field(default_factory=list)


def _one(con, sql: str, params: list) -> dict | None:
    frame = con.execute(sql, params).pl()
    return frame.to_dicts()[0] if frame.height else None


def _platform(con, spec: SideSpec) -> dict:
    row = _one(con, "select * from platform where platform_id = ?", [spec.platform_id])
    if row is None:
        known = ", ".join(r[0] for r in con.execute("select platform_id from platform order by 1").fetchall())
        raise WhatIfError(f"unknown platform {spec.platform_id!r}; known: {known}")
    return row


def prepare(
    con: duckdb.DuckDBPyConnection,
    workload_id: str,
    baseline: SideSpec,
    measured_tokens_per_s: float | None,
    measured_days: float | None,
    candidates: list[SideSpec],
    units_per_token: float | None,
    run_date: date,
    dtype: str | None = None,
) -> dict:
    """Load the question into the scratch warehouse and rebuild the models."""
    workload = _one(con, "select * from workload where workload_id = ?", [workload_id])
    if workload is None:
        known = ", ".join(r[0] for r in con.execute("select workload_id from workload order by 1").fetchall())
        raise WhatIfError(f"unknown workload {workload_id!r}; known: {known}")
    if dtype is not None and dtype not in ("fp4", "fp8", "bf16"):
        raise WhatIfError(f"dtype {dtype!r}: use fp4, fp8 or bf16")
    if units_per_token is not None:
        con.execute("update workload set units_per_token = ? where workload_id = ?", [units_per_token, workload_id])
    if measured_tokens_per_s and measured_days:
        # a measured rate and duration pin the job's size: tokens = rate x seconds
        con.execute(
            "update workload set total_tokens = ? where workload_id = ?",
            [measured_tokens_per_s * measured_days * 86400, workload_id],
        )
    base_platform = _platform(con, baseline)
    base_n = baseline.n_gpus or base_platform["gpus_per_node"]
    for spec in [baseline, *candidates]:
        platform = _platform(con, spec)
        # candidates in the asked dtype; the baseline in the one it was measured in
        wanted = dtype if dtype and spec is not baseline else workload["dtype"]
        con.execute(
            "insert into model_request values (?, ?, ?, ?)",
            [workload_id, platform["gpu_id"], spec.n_gpus or platform["gpus_per_node"], f"exact:{wanted}"],
        )
    if measured_tokens_per_s is None and measured_days is not None:
        measured_tokens_per_s = workload["total_tokens"] / (measured_days * 86400)
    if measured_tokens_per_s is not None:
        # the user's measurement calibrates like any benchmark result, and is the newest
        con.execute(
            """insert into benchmark_result (suite, benchmark, workload_id, scenario, system, gpu, gpu_name,
                   gpu_count, nodes, role_split, metric, value, unit, per_gpu_value, measured_at, source,
                   source_ref, source_row)
               values ('user_run', ?, ?, 'training', ?, ?, ?, ?, 1, ?, 'tokens_per_s', ?, 'tokens/s', ?, ?,
                       'whatif', 'gpucalc whatif --measured', 1)""",
            [
                workload_id,
                workload_id,
                base_platform["name"],
                base_platform["gpu_id"],
                base_platform["gpu_id"],
                base_n,
                baseline.split,
                measured_tokens_per_s,
                measured_tokens_per_s / base_n,
                run_date,
            ],
        )
        # the measurement ran in the workload's own dtype, whatever the candidates run in
        con.execute("update benchmark_result set precision = ? where source = 'whatif'", [workload["dtype"]])
    rebuild_estimates(con, "whatif", run_date)
    return {"measured_tokens_per_s": measured_tokens_per_s, "workload": workload, "baseline_dtype": workload["dtype"]}


def _topology(con, workload_id: str, platform_id: str, n: int, split: str | None, dtype: str) -> dict:
    """The side's layout: the given role split, else the best one at that GPU count."""
    row = _one(
        con,
        """select t.*, coalesce(r.producer_rate, 0) as producer_rate, coalesce(r.transfer_rate, 0) as transfer_rate,
                  coalesce(r.consumer_rate, 0) as consumer_rate
           from topology_candidate t
           join workload w on w.workload_id = t.workload_id and t.dtype = ?
           left join topology_role r on r.workload_id = t.workload_id and r.platform_id = t.platform_id
                and r.dtype = t.dtype and r.n_gpus = t.n_gpus and r.producers = t.producers
           where t.workload_id = ? and t.platform_id = ? and t.n_gpus = ?
             and (? is null or t.producers || '+' || t.consumers = ?)
           order by t.fits desc, t.tokens_per_s desc limit 1""",
        [dtype, workload_id, platform_id, n, split, split],
    )
    if row is None:
        raise WhatIfError(
            f"no layout of {workload_id} on {n} GPUs of {platform_id}" + (f" with split {split}" if split else "")
        )
    if not row["fits"]:
        raise WhatIfError(f"{workload_id} does not fit on {n} GPUs of {platform_id}: {row['refusal']}")
    return row


def evaluate_side(
    con, label: str, workload: dict, spec: SideSpec, measured: float | None, dtype: str | None = None
) -> SideResult:
    """One side at `dtype` (default: the workload's; a measured baseline keeps the one it ran in)."""
    dtype = dtype or workload["dtype"]
    platform = _platform(con, spec)
    n = spec.n_gpus or platform["gpus_per_node"]
    topo = _topology(con, workload["workload_id"], spec.platform_id, n, spec.split, dtype)
    calib = _one(
        con,
        "select * from calibration_choice where workload_id = ? and platform_id = ?",
        [workload["workload_id"], spec.platform_id],
    ) or {"factor": 1.0, "confidence": "default", "basis": "default"}
    band = _one(
        con,
        "select error_p90 from error_band where kind = ? and confidence = ?",
        [workload["kind"], "measured" if measured else calib["confidence"]],
    ) or {"error_p90": 0.5}
    tokens = measured if measured else topo["tokens_per_s"] * calib["factor"]
    error = 0.0 if measured else band["error_p90"]
    # steady-state time on both sides: a measured duration already holds its own restarts
    time_h = workload["total_tokens"] / tokens / 3600
    splits = []
    if workload["kind"] == "role_pipeline":
        splits = [
            (r[0], r[1] * calib["factor"], r[2])
            for r in con.execute(
                """select producers || '+' || consumers, tokens_per_s, bottleneck from topology_role r
                   where r.workload_id = ? and platform_id = ? and n_gpus = ? and fits and r.dtype = ?
                   order by tokens_per_s desc""",
                [workload["workload_id"], spec.platform_id, n, dtype],
            ).fetchall()
        ]
    return SideResult(
        label=label,
        platform_id=spec.platform_id,
        gpu_id=platform["gpu_id"],
        n_gpus=n,
        layout=topo["layout"],
        bottleneck=topo["bottleneck"],
        tokens_per_s=tokens,
        tokens_low=tokens * (1 - error),
        tokens_high=tokens * (1 + error),
        time_h=time_h,
        gpu_hours=time_h * n,
        usd_per_hour=None,
        usd_total=None,
        price_note="",
        confidence="measured" if measured else calib["confidence"],
        basis="your measurement" if measured else calib["basis"],
        measured=bool(measured),
        scaleup_group=topo["scaleup_group"],
        dtype=topo["run_dtype"],
        stages={k: topo[k] * calib["factor"] for k in ("producer_rate", "transfer_rate", "consumer_rate") if topo[k]},
        splits=splits,
    )


def market_price(con, side: SideResult, scaleup_group: int) -> tuple[float, str] | None:
    """The cheapest latest quote (or ownership) whose instances can hold the side's layout."""
    row = _one(
        con,
        """select ceil(? / q.gpus_per_instance) * q.usd_per_instance_hour as usd_per_hour,
                  q.provider, q.instance_type, q.pricing, q.region
           from price_option q join platform p on p.platform_id = ?
           where q.gpu = p.gpu_id and (q.platform_id is null or q.platform_id = p.platform_id)
             and (q.gpus_per_instance >= least(?, ?) or (p.scaleup_domain_gpus > 8 and q.gpus_per_instance >= 1))
           order by usd_per_hour, q.provider limit 1""",
        [side.n_gpus, side.platform_id, scaleup_group, side.n_gpus],
    )
    if row is None:
        return None
    return row["usd_per_hour"], f"{row['provider']} {row['instance_type']} ({row['pricing']}, {row['region']})"


def price_side(
    con, side: SideResult, price: Price | None, base_gpu_hour: float | None, gpus_per_node: int, scaleup_group: int
) -> None:
    if price is None or price.kind == "market":
        found = market_price(con, side, scaleup_group)
        if found is None:
            side.price_note = "no quote in the warehouse can hold this layout"
            return
        side.usd_per_hour, side.price_note = found
    elif price.kind == "gpu_hour":
        side.usd_per_hour, side.price_note = price.value * side.n_gpus, f"{price.value:.2f} USD per GPU-hour (given)"
    elif price.kind == "system_hour":
        systems = math.ceil(side.n_gpus / gpus_per_node)
        side.usd_per_hour = price.value * systems
        side.price_note = f"{systems} system(s) x {price.value:.2f} USD per hour (given)"
    else:  # relative to the baseline's per-GPU price
        if base_gpu_hour is None:
            side.price_note = "relative price needs a baseline price"
            return
        per_gpu = price.value * base_gpu_hour
        side.usd_per_hour = per_gpu * side.n_gpus
        side.price_note = f"{price.value:g}x the baseline per GPU = {per_gpu:.2f} USD per GPU-hour"
    side.usd_total = side.usd_per_hour * side.time_h
