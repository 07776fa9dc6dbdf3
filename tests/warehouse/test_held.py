"""A view the later models read many times is held as a table on a small warehouse and stays a
view on a large one (warehouse/build/held.py): the same rows either way, and a warehouse moves
between the two kinds across rebuilds, whichever way its topology tables were made."""

import math
from datetime import date

import pytest

from tests.warehouse.test_topology_inputs import toy_warehouse
from warehouse.build import held, manifest, rebuild
from warehouse.loading.load import RunContext
from warehouse.store import db

RUN = RunContext.new("held", date(2026, 11, 29))
SERVING_LAYOUT = "028_serving_layout.sql"
# what the held view feeds: every serving layout's choice, both passes, and the calibration
FED = ("serving_layout", "topology_serving", "topology_serving_calibrated", "calibration_choice", "topology_estimate")


def kind(con, name: str) -> str:
    return con.execute("select table_type from information_schema.tables where table_name = ?", [name]).fetchone()[0]


def rows(con) -> dict[str, list[tuple]]:
    return {name: [tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row)
                   for row in con.execute(f"select * from {name} order by all").fetchall()] for name in FED}


def holding_up_to(monkeypatch, pairs: int) -> None:
    monkeypatch.setitem(manifest.manifest().held_when_small, SERVING_LAYOUT, pairs)


def test_the_toy_holds_its_layouts_as_a_table_and_a_larger_warehouse_keeps_the_view(monkeypatch):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")
    con = toy_warehouse(RUN)
    pairs = con.execute("select (select count(*) from workload) * (select count(*) from platform)").fetchone()[0]
    holding_up_to(monkeypatch, pairs)  # the toy at the limit: held
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
    assert kind(con, "serving_layout") == "BASE TABLE"
    as_table = rows(con)
    holding_up_to(monkeypatch, pairs - 1)  # one pair over: a view, the table the rebuild before left dropped
    con.execute("update assumption set value = value * 1.5 where name = 'memory_headroom'")
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
    assert kind(con, "serving_layout") == "VIEW"
    con.execute("update assumption set value = value / 1.5 where name = 'memory_headroom'")
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
    assert kind(con, "serving_layout") == "VIEW" and rows(con) == as_table
    holding_up_to(monkeypatch, pairs)
    con.execute("update assumption set value = value * 1.5 where name = 'memory_headroom'")
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
    assert kind(con, "serving_layout") == "BASE TABLE"


def test_a_rebuild_that_keeps_the_layouts_keeps_the_held_table_and_its_rows(monkeypatch):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")
    con = toy_warehouse(RUN)
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
    before = rows(con)
    ran = []
    real = rebuild._run
    monkeypatch.setattr(rebuild, "_run", lambda c, models: (ran.extend(name for name, _ in models), real(c, models)))
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)  # nothing the layouts read moved
    assert SERVING_LAYOUT not in ran
    assert kind(con, "serving_layout") == "BASE TABLE" and rows(con) == before


def test_a_layout_restored_from_the_cache_is_held_as_computing_it_holds_it(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(tmp_path / "cache"))
    computed = toy_warehouse(RUN)
    rebuild.rebuild_estimates(computed, RUN.run_id, RUN.run_date)  # computes and keeps the entry
    restored = toy_warehouse(RUN)
    restored.execute("create view serving_layout as select 1 as left_by_an_older_rebuild")
    rebuild.rebuild_estimates(restored, RUN.run_id, RUN.run_date)  # copies it back
    assert kind(restored, "serving_layout") == "BASE TABLE" and rows(restored) == rows(computed)


def test_only_a_view_of_the_layouts_may_be_held():
    models = db.model_files()
    assert set(manifest.manifest().held_when_small) <= set(manifest.manifest().layouts)
    assert held.names(models) == {"serving_layout"}
    with pytest.raises(RuntimeError, match="028_serving_layout.sql is held_when_small .* but makes no view"):
        held.statement(db.connect(":memory:"), SERVING_LAYOUT, "create or replace table serving_layout as select 1")
