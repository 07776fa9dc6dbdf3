"""A warehouse without topology tables of its own copies those another rebuild computed from the
same inputs (warehouse/build/topology_cache.py) and gets every row and type computing them gives;
different inputs, a damaged entry or no cache at all compute them."""

import json
import math
import shutil
from datetime import date
from pathlib import Path

import pyarrow as pa
import pytest
from pyarrow import feather

from tests.warehouse.test_topology_inputs import toy_warehouse
from tests.warehouse.warehouse_copies import copy_of, keep
from warehouse.build import rebuild, topology_cache, topology_inputs
from warehouse.loading.load import RunContext
from warehouse.store import db

RUN = RunContext.new("topology-cache", date(2026, 11, 29))
TOPOLOGY, _PRICED = topology_inputs.split(db.model_files())
VIEWS = [name for kind, name in db.defined_by(TOPOLOGY) if kind == "view"]


def rebuilt(con, monkeypatch) -> bool:
    """Rebuild `con`; whether it computed the topology models (rather than copying their tables)."""
    ran = []
    real = rebuild._run
    monkeypatch.setattr(rebuild, "_run", lambda c, models: (ran.extend(models), real(c, models)))
    rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
    monkeypatch.setattr(rebuild, "_run", real)
    return any(model in ran for model in TOPOLOGY)


def contents(con) -> dict[str, tuple]:
    """Every topology table and view, and the priced winners, as types and sorted rows (NaN named)."""
    found = {}
    for name in [*topology_cache._tables(TOPOLOGY), *VIEWS, "estimate_best"]:
        columns = "* exclude (run_id)" if name == "estimate_best" else "*"
        rows = con.execute(f"select {columns} from {name} order by all").fetchall()
        types = con.execute(f"describe select {columns} from {name}").fetchall()
        found[name] = (types, [tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in r) for r in rows])
    return found


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> Path:
    """The toy warehouse loaded and not yet rebuilt (toy_warehouse), kept in a file: each
    warehouse below is a copy of it rather than a load of the toy again."""
    con = toy_warehouse(RUN)
    try:
        return keep(con, tmp_path_factory.mktemp("loaded") / "toy.duckdb")
    finally:
        con.close()


@pytest.fixture(scope="module")
def kept(loaded, tmp_path_factory):
    """A cache holding the toy's topology tables, and what computing them gave."""
    folder = tmp_path_factory.mktemp("topology-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUCALC_CACHE_DIR", str(folder))
        con = copy_of(loaded)
        rebuild.rebuild_estimates(con, RUN.run_id, RUN.run_date)
        digest, _ = topology_inputs.check(con, db.model_files())
        computed = contents(con)
        con.close()
    (entry,) = (folder / topology_cache.KIND).iterdir()
    return folder, entry, digest, computed


@pytest.fixture
def cache_copy(kept, tmp_path, monkeypatch):
    """A copy of the kept cache this test may damage, as gpucalc's cache."""
    folder, entry, _digest, _computed = kept
    copy = tmp_path / "cache"
    shutil.copytree(folder, copy)
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(copy))
    return copy / topology_cache.KIND / entry.name


def test_another_warehouse_with_the_same_inputs_copies_every_row_computing_gives(kept, loaded, cache_copy,
                                                                                   monkeypatch):
    assert {p.name for p in cache_copy.iterdir()} == (
        {f"{t}.arrow" for t in topology_cache._tables(TOPOLOGY)} | {topology_cache.MANIFEST})
    con = copy_of(loaded)
    assert not rebuilt(con, monkeypatch)
    assert contents(con) == kept[3]
    # and remembers the inputs, as a computing rebuild does: the next rebuild keeps the tables
    assert topology_inputs.check(con, db.model_files()) == (kept[2], True)


def test_another_warehouse_with_other_inputs_computes_them(kept, loaded, cache_copy, monkeypatch):
    con = copy_of(loaded)
    con.execute("update gpu set mem_bw_tbps = mem_bw_tbps * 0.9")
    assert rebuilt(con, monkeypatch)
    assert contents(con) != kept[3]
    assert len(list(cache_copy.parent.iterdir())) == 2  # and keeps them beside the first


def _truncated(entry):
    path = entry / "training_option.arrow"
    path.write_bytes(path.read_bytes()[:100])


def _another_schema(entry):
    feather.write_feather(pa.table({"x": [1, 2]}), entry / "case_layout.arrow")


def _no_manifest(entry):
    (entry / topology_cache.MANIFEST).unlink()


def _sql_for_a_type(entry):
    path = entry / topology_cache.MANIFEST
    manifest = json.loads(path.read_text())
    manifest["case_layout"]["columns"][0][1] = "VARCHAR from gpu; drop table gpu; select 1"
    path.write_text(json.dumps(manifest))


def test_a_damaged_entry_is_a_miss_and_the_rebuild_computes(kept, loaded, cache_copy, monkeypatch):
    _truncated(cache_copy)
    con = copy_of(loaded)
    assert rebuilt(con, monkeypatch)
    assert contents(con) == kept[3]


@pytest.mark.parametrize("damage", [_another_schema, _no_manifest, _sql_for_a_type])
def test_an_entry_that_does_not_read_back_as_written_copies_nothing(kept, cache_copy, damage):
    damage(cache_copy)
    con = db.connect(":memory:")
    assert not topology_cache.restore(con, kept[2], TOPOLOGY)
    assert "case_layout" not in db.objects(con) and "gpu" in db.objects(con)


def test_no_cache_keeps_nothing_and_copies_nothing(kept, monkeypatch, tmp_path):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")
    monkeypatch.setenv("HOME", str(tmp_path))  # where a default cache would go
    con = db.connect(":memory:")
    assert not topology_cache.restore(con, kept[2], TOPOLOGY)
    topology_cache.keep(con, kept[2], TOPOLOGY)
    assert not list(tmp_path.iterdir())
