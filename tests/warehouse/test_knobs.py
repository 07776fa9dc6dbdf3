"""Every knob the models read moves an estimate: each assumption and each stage's efficiency
factor, moved on its own, changes a throughput, a time, a memory fit, a cost or an error band
of the toy warehouse. A knob that moves nothing is dead and goes."""

from datetime import date

import pytest

from sources.bundled.catalog import load_table
from sources.kit.spec import Parsed
from tests.warehouse.test_decisions import _quote
from tests.warehouse.test_serving_physics import _catalog
from tests.warehouse.toy_catalog import benchmark, benchmark_frame
from warehouse.build import topology_inputs
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext, load_benchmarks
from warehouse.loading.reference_load import load_reference
from warehouse.store import db

RUN = RunContext.new("knobs", date(2026, 11, 29))
# where moving a knob by half does not show, the value it is moved to instead
MOVED_TO = {
    "min_backtest_points": 1.0,  # one toy point: the error band becomes a number
    "a2a_latency_s": 1e-3,  # the toy's links have no latency
    "a2a_network_latency_s": 1e-3,
    "poisson_z": 2.33,  # the toy has no arrival noise
    "prefill_chunk_tokens": 100.0,  # the toy's 1000-token prompts fit one step: split them in ten
    "consumer": 0.2,  # the toy's drafters keep up with the targets: slow them until they cannot
    "disagg_prefill_utilization": 10.0,  # prompts nearly free apart: the disaggregated fleet wins
    "max_fleet_gpus": 1.0,  # the toy's fleets are a few GPUs: one is too few for any demand
    "price_fresh_days": -1.0,  # the toy's quotes are observed on the night: a negative window retires them
}
# The assumptions no layout model reads go first: their rebuilds keep the base's layout tables,
# which a test of one the layouts read leaves computed for its moved value
LAYOUT_KNOBS = {name for _file, sql in topology_inputs.split(db.model_files())[0]
                for name in topology_inputs.ASSUMED.findall(sql)}
ASSUMPTIONS = sorted(load_table("assumption")["name"].to_list(), key=lambda name: name in LAYOUT_KNOBS)
SIGNATURE = """
    select (select list(tokens_per_s order by tokens_per_s) from topology_estimate),
           (select list(time_to_finish_h order by time_to_finish_h) from topology_estimate),
           (select list(mem_per_gpu_gb order by mem_per_gpu_gb) from topology_estimate),
           (select list(usd_total order by usd_total) from estimate),
           (select list(basis order by basis) from error_band)
"""


@pytest.fixture(scope="module")
def toy():
    """The toy with every knob the catalog ships, built once, and its estimates' signature: each
    test moves one knob, rebuilds and puts the knob back. The rebuilds keep no topology cache
    (GPUCALC_CACHE_DIR=off): a moved knob's layouts are inputs no other rebuild asks for."""
    con = db.connect(":memory:")
    load_reference(con, _catalog(), RUN)
    # one measurement, so calibration and error bands have something to rest on
    row = benchmark(benchmark="moe-offline", workload_id="moe-offline", scenario="Offline", value=20000.0,
                    gpu_count=4)
    load_benchmarks(con, "test", Parsed(benchmark_frame([row])), RUN, ["test/2026-11-29/runs.csv"])
    # the toy lacks some assumptions: every one the catalog ships is set, at the catalog's value
    for name, value in load_table("assumption").select("name", "value").iter_rows():
        if con.execute("select count(*) from assumption where name = ?", [name]).fetchone()[0] == 0:
            con.execute("insert into assumption (name, value, unit, source) values (?, ?, '', 'catalog')",
                        [name, value])
    con.execute("update assumption set value = 0 where name = 'poisson_z'")
    _quote(con, "toy.1", 1, 0.4, "spot")  # spot restarts lengthen the jobs priced on it
    for stage in load_table("stage_efficiency_default")["stage"]:
        con.execute(
            """insert into stage_efficiency_default (stage, factor, source) select ?, 1.0, 'catalog'
               where not exists (select 1 from stage_efficiency_default where stage = ?)""",
            [stage, stage],
        )
    con.execute(
        """insert into workload select * replace ('toy-full' as workload_id, 'finetune_full' as kind)
           from workload where workload_id = 'toy-pretrain'"""
    )
    # a serving job with a demand and a TPOT limit that binds (fleets, disaggregation)
    con.execute(
        """insert into workload select * replace ('moe-demand' as workload_id, 260000.0 as demand_tokens_per_s,
                                                  'job' as purpose, 20.0 as tpot_ms)
           from workload where workload_id = 'moe-server'"""
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUCALC_CACHE_DIR", "off")
        rebuild_estimates(con, "base", RUN.run_date)
        yield con, con.execute(SIGNATURE).fetchone()
    con.close()


def _moved(con, table: str, key_column: str, key: str, value_column: str) -> tuple:
    old = con.execute(f"select {value_column} from {table} where {key_column} = ?", [key]).fetchone()[0]
    new = MOVED_TO.get(key, old * 1.5 if old else 1.0)
    con.execute(f"update {table} set {value_column} = ? where {key_column} = ?", [new, key])
    try:
        rebuild_estimates(con, "moved", RUN.run_date)
        return con.execute(SIGNATURE).fetchone()
    finally:
        con.execute(f"update {table} set {value_column} = ? where {key_column} = ?", [old, key])


@pytest.mark.parametrize("name", ASSUMPTIONS)
def test_every_assumption_moves_an_estimate(toy, name):
    con, base = toy
    assert _moved(con, "assumption", "name", name, "value") != base, f"assumption {name} moves nothing"


@pytest.mark.parametrize("stage", load_table("stage_efficiency_default")["stage"].to_list())
def test_every_stage_factor_moves_an_estimate(toy, stage):
    con, base = toy
    assert _moved(con, "stage_efficiency_default", "stage", stage, "factor") != base, f"stage {stage} moves nothing"
