"""A rebuild keeps the topology models' tables only when none of their inputs changed
(warehouse/build/topology_inputs.py): a new price keeps them and gives what a full rebuild gives;
any change to what they read computes them again; and their SQL reads no price, run or log."""

import re
from datetime import date

import pytest

from sources.kit.spec import Parsed
from tests.warehouse.test_decisions import _quote
from tests.warehouse.test_serving_physics import _catalog
from tests.warehouse.toy_catalog import benchmark, benchmark_frame
from warehouse.build import topology_inputs
from warehouse.build.manifest import manifest
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext, load_benchmarks
from warehouse.loading.reference_load import load_reference
from warehouse.store import db

RUN = RunContext.new("topology-inputs", date(2026, 11, 29))
KEPT = ("topology_serving_calibrated", "topology_option", "calibration_choice")  # tables of models before 065
PRICED = "select * exclude (run_id) from estimate_best order by all"


def toy_warehouse(run: RunContext = RUN):
    """The toy catalog, one quote and one measurement, loaded and not yet rebuilt."""
    con = db.connect(":memory:")
    load_reference(con, _catalog(), run)
    _quote(con, "toy.1", 1, 0.4, "on_demand")
    row = benchmark(benchmark="moe-offline", workload_id="moe-offline", scenario="Offline", value=20000.0,
                    gpu_count=4)
    load_benchmarks(con, "test", Parsed(benchmark_frame([row])), run, ["test/2026-11-29/runs.csv"])
    return con


@pytest.fixture(scope="module")
def toy():
    """One toy warehouse for the module: each test leaves it rebuilt from what it holds."""
    con = toy_warehouse()
    rebuild_estimates(con, RUN.run_id, RUN.run_date)
    yield con
    con.close()


def table_ids(con) -> dict[str, int]:
    """DuckDB's id of each table: `create or replace` gives the table a new one."""
    return dict(con.execute("select table_name, table_oid from duckdb_tables() where table_name in ?",
                            [list(KEPT)]).fetchall())


def test_a_new_price_keeps_the_topology_tables_and_gives_what_a_full_rebuild_gives(toy):
    before = table_ids(toy)
    _quote(toy, "toy.8", 8, 1.6, "on_demand", provider="othercloud")
    rebuild_estimates(toy, "next", date(2026, 11, 30))
    assert table_ids(toy) == before
    kept = toy.execute(PRICED).fetchall()
    assert any(row for row in kept if "othercloud" in row)  # the new price did reach the estimates
    toy.execute(f"drop table {topology_inputs.DIGEST_TABLE}")  # nothing remembered: everything again
    rebuild_estimates(toy, "next", date(2026, 11, 30))
    assert all(table_ids(toy)[name] != before[name] for name in KEPT)
    assert toy.execute(PRICED).fetchall() == kept


def test_a_reload_of_the_same_rows_keeps_them(toy):
    """The lineage a load stamps (run_id, extracted_at) is no input: a night that reloads the
    same catalog and benchmarks keeps the topology tables."""
    before = table_ids(toy)
    toy.execute("update benchmark_result set run_id = 'another-night', extracted_at = extracted_at + interval 1 day")
    rebuild_estimates(toy, "next", date(2026, 11, 30))
    assert table_ids(toy) == before


def test_a_cost_assumption_keeps_them_and_prices_as_a_full_rebuild_does(toy):
    """Power price, PUE or ownership years move costs, not layouts: `gpucalc decide` or `whatif`
    setting one recomputes only the priced models."""
    before = table_ids(toy)
    toy.execute("update assumption set value = value * 1.3 where name in ('pue', 'usd_per_kwh', 'ownership_years')")
    rebuild_estimates(toy, "next", date(2026, 11, 30))
    assert table_ids(toy) == before
    kept = toy.execute(PRICED).fetchall()
    toy.execute(f"drop table {topology_inputs.DIGEST_TABLE}")
    rebuild_estimates(toy, "next", date(2026, 11, 30))
    assert all(table_ids(toy)[name] != before[name] for name in KEPT)
    assert toy.execute(PRICED).fetchall() == kept


CHANGES = [
    "update assumption set value = value * 0.9 where name = 'memory_headroom'",
    "update assumption set value = value * 1.5 where name = 'moe_imbalance'",
    "update stage_efficiency_default set factor = factor * 0.9",
    "update platform set max_nodes = max_nodes + 1",
    "update gpu set mem_bw_tbps = mem_bw_tbps * 0.9",
    "update benchmark_result set value = value * 1.1",
    "delete from workload where workload_id = (select min(workload_id) from workload)",
]


def test_any_change_to_what_the_topology_models_read_computes_them_again(toy):
    models = db.model_files()
    for change in CHANGES:
        # each change on its own, undone after: what a rebuild asks before keeping the tables
        toy.execute("begin transaction")
        try:
            toy.execute(change)
            assert topology_inputs.check(toy, models)[1] is False, change
        finally:
            toy.execute("rollback")
    assert topology_inputs.check(toy, models)[1]  # all undone: the tables would be kept
    # and a rebuild told so computes them
    before = table_ids(toy)
    toy.execute(CHANGES[-1])
    rebuild_estimates(toy, "next", date(2026, 11, 30))
    assert all(table_ids(toy)[name] != before[name] for name in KEPT)


def test_the_topology_models_read_no_price_run_or_log():
    topology, priced = topology_inputs.split(db.model_files())
    assert topology and priced and priced[0][0] == manifest().priced[0]
    forbidden = {*topology_inputs.NOT_TOPOLOGY_INPUTS, *topology_inputs.NOT_TOPOLOGY_COLUMNS,
                 "run_context", "run_date"}
    macros = [(name, sql) for name, sql in db.schema_files() if "macro" in sql]
    for name, sql in [*topology, *macros]:
        code = re.sub(r"--[^\n]*", "", sql)
        words = set(re.findall(r"\w+", code))
        assert not words & forbidden, (name, words & forbidden)
        assert not [w for w in words if w.startswith(topology_inputs.NOT_TOPOLOGY_PREFIXES)], name
        # an assumption is read by name, as the digest takes it: assume('name'), nothing else
        code = code.replace("macro assume(key) as (select value from assumption where name = key)", "")
        assert "assumption" not in re.findall(r"\w+", code), name
        assert len(re.findall(r"assume\(", code)) == len(topology_inputs.ASSUMED.findall(code)), name


def test_every_table_a_load_writes_is_an_input_unless_listed(toy):
    inputs = topology_inputs.input_tables(toy, db.model_files())
    assert {"benchmark_result", "assumption", "platform", "gpu", "workload"} <= set(inputs)
    assert not {"price_quote", "run_log", "serving_scope_calibrated", "estimate_best", "night_option"} & set(inputs)
    toy.execute("create table a_new_catalog_table (x integer)")  # a table a later load adds
    try:
        assert "a_new_catalog_table" in topology_inputs.input_tables(toy, db.model_files())
    finally:
        toy.execute("drop table a_new_catalog_table")
