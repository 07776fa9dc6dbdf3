"""What if we ran this job elsewhere? A measured baseline against candidate platforms.

The baseline's measured throughput becomes a benchmark result in a scratch copy of the
warehouse, so it calibrates the model exactly as any measurement does; the candidates are
then estimated by the same SQL models and compared. Nothing here writes the nightly
warehouse. Prices: warehouse/questions/whatif_price.py; physics checks: warehouse/questions/whatif_checks.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import duckdb

from warehouse.build.rebuild import rebuild_estimates
from warehouse.questions.decision_ranges import rate_range
from warehouse.questions.fleet_rows import fleet_text, platform_shapes
from warehouse.questions.whatif_inputs import SideSpec, WhatIfError, apply_assumptions, check_dtype
from warehouse.questions.whatif_price import PricePoint


@dataclass
class SideResult:
    label: str
    platform_id: str
    gpu_id: str
    n_gpus: int  # every GPU of the side (targets and drafters)
    layout: str
    bottleneck: str
    tokens_per_s: float
    tokens_low: float | None  # None: no validated error band to span
    tokens_high: float | None
    time_h: float
    gpu_hours: float
    # the figures on the first basis asked for (all of them: `prices`)
    usd_per_hour: float | None
    usd_total: float | None
    price_note: str
    confidence: str
    basis: str  # what the throughput rests on (measurement, calibration, defaults)
    measured: bool = False
    scaleup_group: int = 1
    dtype: str = ""
    placement: str | None = None  # role pipelines: split | shared | two-platform
    tp: int | None = None
    drafter_platform_id: str | None = None
    drafter_gpu_id: str | None = None
    drafter_gpus: int | None = None
    stages: dict[str, float] = field(default_factory=dict)
    transfer: dict[str, float | str] = field(default_factory=dict)  # hidden states: GB/s needed, of which link
    splits: list[tuple[str, float, str]] = field(default_factory=list)
    why_shared: str | None = None  # role pipelines run shared: why every GPU runs both roles
    error_basis: str = ""
    price_basis: str = ""
    prices: dict[str, PricePoint] = field(default_factory=dict)
    peak_shares: dict[str, float] = field(default_factory=dict)  # measured: share of dense peak per stage
    fleet: str = ""  # the side's GPUs in words, as every answer says a fleet (fleet_rows.fleet_text)


def _one(con, sql: str, params: list) -> dict | None:
    frame = con.execute(sql, params).pl()
    return frame.to_dicts()[0] if frame.height else None


def platform_row(con, platform_id: str) -> dict:
    row = _one(con, "select * from platform where platform_id = ?", [platform_id])
    if row is None:
        known = ", ".join(r[0] for r in con.execute("select platform_id from platform order by 1").fetchall())
        raise WhatIfError(f"unknown platform {platform_id!r}; known: {known}")
    return row


def side_gpus(con, spec: SideSpec) -> int:
    """The side's target (or only) GPU count: as given, else one node; never more than the platform
    is modelled at (`gpus_per_node x max_nodes`, as the nightly estimates are)."""
    platform = platform_row(con, spec.platform_id)
    cap = platform["gpus_per_node"] * platform["max_nodes"]
    if spec.n_gpus and spec.n_gpus > cap:
        nodes = f"{platform['max_nodes']} node{'s' if platform['max_nodes'] != 1 else ''}"
        raise WhatIfError(
            f"{spec.platform_id} is modelled up to {cap:,} GPUs ({platform['gpus_per_node']} per node x {nodes}), "
            f"not {spec.n_gpus:,}; a larger deployment needs its own platform row in <data>/catalog/platform.csv"
        )
    return spec.n_gpus or platform["gpus_per_node"]


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
    ownership: dict[str, float] | None = None,
) -> dict:
    """Load the question into the scratch warehouse and rebuild the models."""
    workload = _one(con, "select * from workload where workload_id = ?", [workload_id])
    if workload is None:
        known = ", ".join(r[0] for r in con.execute("select workload_id from workload order by 1").fetchall())
        raise WhatIfError(f"unknown workload {workload_id!r}; known: {known}")
    check_dtype(dtype)
    for spec in [baseline, *candidates]:
        if (spec.split or spec.drafter) and workload["kind"] != "role_pipeline":
            raise WhatIfError(f"{spec.label}: a role layout needs a role-pipeline workload; {workload_id} is "
                              f"{workload['kind']}")
    apply_assumptions(con, ownership or {}, "gpucalc whatif")
    if units_per_token is not None:
        con.execute("update workload set units_per_token = ? where workload_id = ?", [units_per_token, workload_id])
    if measured_tokens_per_s and measured_days:
        # a measured rate and duration pin the job's size: tokens = rate x seconds
        con.execute(
            "update workload set total_tokens = ? where workload_id = ?",
            [measured_tokens_per_s * measured_days * 86400, workload_id],
        )
    base_platform = platform_row(con, baseline.platform_id)
    for spec in [baseline, *candidates]:
        # candidates in the asked dtype; the baseline in the one it was measured in
        wanted = dtype if dtype and spec is not baseline else workload["dtype"]
        parts = [spec, spec.drafter] if spec.drafter else [spec]
        for part in parts:
            con.execute(
                "insert into model_request (workload_id, gpu_id, gpu_count, precision) values (?, ?, ?, ?)",
                [workload_id, platform_row(con, part.platform_id)["gpu_id"], side_gpus(con, part), f"exact:{wanted}"],
            )
    if measured_tokens_per_s is None and measured_days is not None:
        measured_tokens_per_s = workload["total_tokens"] / (measured_days * 86400)
    if measured_tokens_per_s is not None and baseline.drafter is None:
        # the user's measurement calibrates like any benchmark result, and is the newest (a
        # two-platform baseline has no single platform to calibrate, so it only answers for itself)
        base_n = side_gpus(con, baseline)
        con.execute(
            """insert into benchmark_result (suite, benchmark, workload_id, scenario, system, gpu, gpu_name,
                   gpu_count, nodes, role_split, metric, value, unit, per_gpu_value, measured_at, source,
                   source_ref, source_row, precision)
               values ('user_run', ?, ?, 'training', ?, ?, ?, ?, ?, ?, 'tokens_per_s', ?, 'tokens/s', ?, ?,
                       'whatif', 'gpucalc whatif --measured', 1, ?)""",
            [
                workload_id, workload_id, base_platform["name"], base_platform["gpu_id"], base_platform["gpu_id"],
                base_n, -(-base_n // base_platform["gpus_per_node"]), baseline.split, measured_tokens_per_s,
                measured_tokens_per_s / base_n, run_date,
                # the measurement ran in the workload's own dtype, whatever the candidates run in
                workload["dtype"],
            ],
        )
    rebuild_estimates(con, "whatif", run_date)
    return {"measured_tokens_per_s": measured_tokens_per_s, "workload": workload, "baseline_dtype": workload["dtype"]}


def _role_layout(con, workload_id: str, spec: SideSpec, n: int, dtype: str) -> dict:
    """A role pipeline's layout: the one asked for, else the fastest at that GPU count."""
    where, params = "placement <> 'two-platform' and n_gpus = ?", [n]
    what = f"{n} GPUs of {spec.platform_id}"
    if spec.drafter is not None:
        c = spec.drafter.n_gpus
        where = "placement = 'two-platform' and producers = ? and consumer_platform_id = ? and consumers = ?"
        params = [n, spec.drafter.platform_id, c]
        what = f"{n} target GPUs of {spec.platform_id} with {c} drafter GPUs of {spec.drafter.platform_id}"
    elif spec.split == "shared":
        where += " and placement = 'shared'"
        what += ", target and drafter shared"
    elif spec.split:
        where += " and placement = 'split' and producers || '+' || consumers = ?"
        params.append(spec.split)
        what += f" split {spec.split}"
    row = _one(
        con,
        f"""select * from topology_role where workload_id = ? and platform_id = ? and dtype = ? and {where}
            order by fits desc, tokens_per_s desc, placement limit 1""",
        [workload_id, spec.platform_id, dtype, *params],
    )
    if row is None:
        hint = ""
        if spec.drafter is not None:
            hint = ("; drafters come 1 to 8 on one node of another GPU type, targets fill at most one node "
                    "(or scale-up domain), in whole tensor-parallel groups")
        elif spec.split and spec.split != "shared":
            hint = "; targets come in whole tensor-parallel groups: see the splits it lists without /LAYOUT"
        raise WhatIfError(f"no layout of {workload_id} on {what}{hint}")
    if not row["fits"]:
        raise WhatIfError(
            f"{workload_id} does not fit on {what}: a target GPU needs {row['mem_per_gpu_gb']:.1f} GB of "
            f"{row['mem_capacity_gb']:.1f}, a drafter GPU {row['consumer_mem_gb']:.1f} GB of "
            f"{row['consumer_mem_capacity_gb']:.1f} (layout {row['layout']})"
        )
    return row


def _topology(con, workload_id: str, platform_id: str, n: int, dtype: str, kind: str) -> dict:
    """Any other workload's layout: the best at that GPU count. Serving takes the published
    choice (the estimates' rows), whose batch meets the latency limits at the calibrated step
    time, so its throughput already carries the calibration factor."""
    table = ("(select * from topology_serving_calibrated where case_index is null)" if kind == "serving"
             else "topology_option")
    row = _one(
        con,
        f"""select * from {table} where workload_id = ? and platform_id = ? and n_gpus = ? and dtype = ?
            order by fits desc, tokens_per_s desc limit 1""",
        [workload_id, platform_id, n, dtype],
    )
    if row is None:
        raise WhatIfError(f"no layout of {workload_id} on {n} GPUs of {platform_id}")
    if not row["fits"]:
        raise WhatIfError(f"{workload_id} does not fit on {n} GPUs of {platform_id}: {row['refusal']}")
    return row


def _calibration(con, workload_id: str, platform_id: str, n: int) -> dict:
    """The factor for this count; a count no estimate has (a two-platform side's) takes the
    platform's most specific level that does not depend on the count."""
    return (
        _one(con, "select * from calibration_choice where workload_id = ? and platform_id = ? and n_gpus = ?",
             [workload_id, platform_id, n])
        or _one(con, """select * from calibration_choice where workload_id = ? and platform_id = ? and level <> 1
                        order by level = 0, level limit 1""", [workload_id, platform_id])
        or {"factor": 1.0, "confidence": "default", "basis": "default", "level": 0}
    )


def _splits(con, workload_id: str, spec: SideSpec, n: int, dtype: str, factor: float) -> list[tuple[str, float, str]]:
    """Every other layout at the side's size, fastest first: the splits (and shared) of one
    platform, or the drafter counts on the drafters' platform."""
    if spec.drafter is not None:
        sql = """select producers || '+' || consumers, tokens_per_s, bottleneck from topology_role
                 where workload_id = ? and platform_id = ? and dtype = ? and fits and placement = 'two-platform'
                   and producers = ? and consumer_platform_id = ? order by tokens_per_s desc, consumers"""
        params = [workload_id, spec.platform_id, dtype, n, spec.drafter.platform_id]
    else:
        sql = """select case placement when 'shared' then 'shared' else producers || '+' || consumers end,
                        tokens_per_s, bottleneck from topology_role
                 where workload_id = ? and platform_id = ? and dtype = ? and fits and placement <> 'two-platform'
                   and n_gpus = ? order by tokens_per_s desc, producers desc"""
        params = [workload_id, spec.platform_id, dtype, n]
    return [(label, rate * factor, bottleneck) for label, rate, bottleneck in con.execute(sql, params).fetchall()]


def evaluate_side(
    con, label: str, workload: dict, spec: SideSpec, measured: float | None, dtype: str | None = None
) -> SideResult:
    """One side at `dtype` (default: the workload's; a measured baseline keeps the one it ran in)."""
    dtype = dtype or workload["dtype"]
    platform = platform_row(con, spec.platform_id)
    n = side_gpus(con, spec)
    role = workload["kind"] == "role_pipeline"
    topo = _role_layout(con, workload["workload_id"], spec, n, dtype) if role else _topology(
        con, workload["workload_id"], spec.platform_id, n, dtype, workload["kind"])
    total_gpus = topo["n_gpus"]
    # k systems of serving replicas side by side carry one system's calibration (serving_choice)
    calib = _calibration(con, workload["workload_id"], spec.platform_id, topo.get("system_gpus") or total_gpus)
    # the 90th-percentile held-out error of this kind and class (062_error_band_class) at this level
    band = _one(
        con,
        """select e.error_p90, e.basis from error_band_class e
           join workload w on w.workload_id = ? left join model m on m.model_id = w.model_id
           join gpu g on g.gpu_id = ?
           where e.kind = w.kind and e.class = estimate_class(w.kind, m.experts, g.form_factor, w.scenario)
             and e.level = ?""",
        [workload["workload_id"], platform["gpu_id"], 1 if measured else calib["level"]],
    ) or {"error_p90": None, "basis": "unvalidated: 0 points"}
    calibrated_already = workload["kind"] == "serving"  # topology_serving_calibrated
    tokens = measured if measured else topo["tokens_per_s"] * (1.0 if calibrated_already else calib["factor"])
    error = 0.0 if measured else band["error_p90"]
    low, high = rate_range(tokens, error) if error is not None else (None, None)
    # steady-state time on both sides: a measured duration already holds its own restarts
    time_h = workload["total_tokens"] / tokens / 3600
    side = SideResult(
        label=label,
        platform_id=spec.platform_id,
        gpu_id=platform["gpu_id"],
        n_gpus=total_gpus,
        layout=topo["layout"],
        bottleneck=topo["bottleneck"],
        tokens_per_s=tokens,
        tokens_low=low,
        tokens_high=high,
        error_basis="" if measured else band["basis"],
        time_h=time_h,
        gpu_hours=time_h * total_gpus,
        usd_per_hour=None,
        usd_total=None,
        price_note="",
        confidence="measured" if measured else calib["confidence"],
        basis="your measurement" if measured else calib["basis"],
        measured=bool(measured),
        scaleup_group=topo["scaleup_group"],
        dtype=topo["run_dtype"],
    )
    if role:
        _add_roles(con, side, workload, spec, topo, calib["factor"], dtype)
    side.fleet = fleet_of(con, side)
    return side


def fleet_of(con, side: SideResult) -> str:
    """The side's GPUs in words ("4x B200 (4 of 8 GPUs of one HGX B200 server)"), its drafters'
    after a plus where they run on another platform."""
    drafters = side.drafter_platform_id
    shapes = platform_shapes(con, [side.platform_id, *([drafters] if drafters else [])])
    words = fleet_text({"platform_id": side.platform_id, "gpu_id": side.gpu_id,
                        "n_gpus": side.n_gpus - (side.drafter_gpus or 0)}, shapes)
    if drafters:
        words += " + " + fleet_text({"platform_id": drafters, "gpu_id": side.drafter_gpu_id,
                                     "n_gpus": side.drafter_gpus}, shapes)
    return words


def _add_roles(con, side: SideResult, workload: dict, spec: SideSpec, topo: dict, factor: float, dtype: str) -> None:
    """A role pipeline's placement, stage rates and hidden-state traffic."""
    side.placement, side.tp = topo["placement"], topo["tp"]
    if topo["placement"] == "two-platform":
        side.drafter_platform_id, side.drafter_gpu_id = topo["consumer_platform_id"], topo["consumer_gpu_id"]
        side.drafter_gpus = topo["consumers"]
    # calibration corrects compute efficiencies; a link's bandwidth stays what it is
    side.stages = {k: topo[k] * (1.0 if k == "transfer_rate" else factor)
                   for k in ("producer_rate", "transfer_rate", "consumer_rate") if topo[k]}
    if topo["transfer_rate"]:
        # what the pace asks of the link that carries hidden states, against what it carries
        per_token = workload["transfer_bytes_per_token"]
        side.transfer = {
            "needed_gbs": side.tokens_per_s * per_token / 1e9,
            "capacity_gbs": topo["transfer_rate"] * per_token / 1e9,
            "link": topo["transfer_link"],
        }
    side.splits = _splits(con, workload["workload_id"], spec, topo["producers"], dtype, factor) \
        if spec.drafter is not None else _splits(con, workload["workload_id"], spec, topo["n_gpus"], dtype, factor)
    if topo["placement"] == "shared":
        side.why_shared = _why_shared(con, workload["workload_id"], spec.platform_id, topo["n_gpus"], dtype)


def _why_shared(con, workload_id: str, platform_id: str, n: int, dtype: str) -> str | None:
    """Why every GPU runs both roles: how idle the drafters of the fastest dedicated split would be
    (a ratio of two rates of one layout, so calibration, which scales both, leaves it as it is)."""
    row = con.execute(
        """select producers, consumers, tokens_per_s, consumer_rate from topology_role
           where workload_id = ? and platform_id = ? and dtype = ? and fits and placement = 'split' and n_gpus = ?
           order by tokens_per_s desc, producers desc limit 1""", [workload_id, platform_id, dtype, n]).fetchone()
    if row is None or not row[3]:
        return None
    producers, consumers, pace, drafter_capacity = row
    drafters = "the drafter GPU" if consumers == 1 else f"the {consumers} drafter GPUs"
    return (f"in {producers}+{consumers}, the fastest split, {drafters} would be {pace / drafter_capacity:.0%} busy "
            f"({producers} target GPU{'s' if producers != 1 else ''} make {pace:,.0f} tokens/s), so every GPU runs "
            "both roles in turn, the drafters training data-parallel with their gradients all-reduced each step")

