"""The night's interactivity curves (issues 35 and 36): for each serving job (by default every one,
on the platforms the night's decisions picked for it, and the second seed's pair beside them;
GPUCALC_CURVES), cost per million tokens and tokens/s per GPU of each platform against tokens/s
per user, kept with the night so its report draws them and a past night's report draws them again.

Each curve is what `gpucalc compare JOB --sweep --platforms ...` answers on the night's own
inputs, computed the same way (warehouse/questions/sweep.py): the job copied once per rate in
a private in-memory copy, rebuilt once. The layouts' tables of that copy come from gpucalc's
cache from the second night on (warehouse/build/topology_cache.py).
"""

from __future__ import annotations

from datetime import date

import duckdb

from sources.kit.contracts import PRICING_MODELS
from warehouse.build.rebuild import rebuild_estimates
from warehouse.questions import sweep
from warehouse.questions.scratch import copy_inputs
from warehouse.store import db
from warehouse.store.settings import Curves

TABLE = "night_curve"
COLUMNS = """
    run_date date,
    run_id varchar,
    workload_id varchar,               -- the job (the sweep's copies are named for it)
    platform_id varchar,
    pricing varchar,
    tokens_per_s_per_user double,
    tpot_ms double,                    -- 1000 / tokens_per_s_per_user: the copy's TPOT limit
    usd_per_mtok double,
    tokens_per_s_per_gpu double,       -- the modelled deployment's rate per GPU
    fleet_gpus integer,
    layout varchar,
    provider varchar,
    instance_type varchar,
    usd_per_gpu_hour double
"""
CURVE_RUN = "curve"


def keep(con: duckdb.DuckDBPyConnection, run_id: str, run_date: date, curves: Curves) -> int:
    """Replace the night's curves in `con` with those `curves` asks for that the catalog holds:
    serving jobs and platforms it knows; return the points kept. Run after the night's rebuild,
    whose decisions say the platforms of `curves.every_job`."""
    con.execute(f"create table if not exists {TABLE} ({COLUMNS})")
    con.execute(f"delete from {TABLE} where run_date = ?", [run_date])
    wanted = _known(con, _with_decided(con, curves) if curves.every_job else curves.named)
    if not wanted:
        return 0
    gpus = [r[0] for r in con.execute("select distinct gpu_id from platform where list_contains(?, platform_id)",
                                      [sorted({p for named in wanted.values() for p in named})]).fetchall()]
    scratch = db.connect(":memory:")
    try:
        copy_inputs(con, scratch, quotes_of=gpus)  # the curves price their platforms' accelerators only
        ids = {job: sweep.add_sweep(scratch, job) for job in wanted}
        rebuild_estimates(scratch, CURVE_RUN, run_date)
        rows = [point | {"workload_id": job}
                for job, platforms in wanted.items()
                for point in sweep.points(scratch, ids[job], list(platforms), PRICING_MODELS)]
    finally:
        scratch.close()
    if rows:
        names = [c.split()[0] for c in COLUMNS.strip().splitlines()]
        con.executemany(f"insert into {TABLE} ({', '.join(names)}) values ({', '.join('?' * len(names))})",
                        [[run_date, run_id, *(r[n] for n in names[2:])] for r in rows])
    return len(rows)


def _with_decided(con: duckdb.DuckDBPyConnection, curves: Curves) -> dict[str, tuple[str, ...]]:
    """Every serving job on the platforms the night's decisions picked for it (by id), then those
    `curves` names for it beside them."""
    decided = dict(con.execute(
        """select d.workload_id, list(distinct d.platform_id order by d.platform_id)
           from decision d join workload w on w.workload_id = d.workload_id
           where w.kind = 'serving' and d.platform_id is not null group by all order by all""").fetchall())
    out = {job: tuple(platforms) for job, platforms in decided.items()}
    for job, named in curves.named.items():
        out[job] = (*out.get(job, ()), *(p for p in named if p not in out.get(job, ())))
    return out


def _known(con: duckdb.DuckDBPyConnection, curves: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """The curves whose job is a serving job of the catalog, with the platforms it knows, in order."""
    jobs = {r[0] for r in con.execute("select workload_id from workload where kind = 'serving'").fetchall()}
    platforms = {r[0] for r in con.execute("select platform_id from platform").fetchall()}
    out = {}
    for job, named in curves.items():
        known = tuple(p for p in named if p in platforms)
        if job in jobs and known:
            out[job] = known
    return out
