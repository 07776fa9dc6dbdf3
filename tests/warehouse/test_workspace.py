"""One Workspace per command: the data directory and warehouse resolved once (flag, else environment
variable, else default), and the one place that knows what lives where in a data directory."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from sources.kit import environment
from warehouse.store.location import BadWarehouse
from warehouse.store.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
VARIABLES = ("GPUCALC_DATA_DIR", "GPUCALC_WAREHOUSE", "GPUCALC_LAKE_DATA_PATH", "GPUCALC_CACHE_DIR", "XDG_CACHE_HOME")


@pytest.fixture
def unset(monkeypatch, tmp_path):
    """No setting in the environment, and the current folder an empty one."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def test_a_data_directory_holds_each_thing_in_its_own_place(unset, tmp_path):
    workspace = Workspace.resolve(tmp_path / "d")
    assert workspace.data_dir == tmp_path / "d"
    assert workspace.warehouse == f"{tmp_path}/d/warehouse.duckdb"
    assert workspace.raw_dir == tmp_path / "d" / "raw"
    assert workspace.reports_dir == tmp_path / "d" / "reports"
    assert workspace.catalog_dir == tmp_path / "d" / "catalog"
    assert workspace.journal_dir == tmp_path / "d" / "run_journal"
    assert workspace.logs_dir == tmp_path / "d" / "logs"
    assert workspace.export_dir == tmp_path / "d" / "export"
    assert workspace.lake_data_path == f"{tmp_path}/d/lake/"
    assert workspace.where.kind == "file" and workspace.where.local_file == tmp_path / "d" / "warehouse.duckdb"


def test_the_flag_beats_the_environment_which_beats_the_default(unset, tmp_path):
    assert Workspace.resolve() == Workspace(tmp_path / "data", f"{tmp_path}/data/warehouse.duckdb")
    unset.setenv("GPUCALC_DATA_DIR", "from-env")  # set after import: read when resolved
    unset.setenv("GPUCALC_WAREHOUSE", "ducklake:sqlite:env.sqlite")
    assert Workspace.resolve() == Workspace(tmp_path / "from-env", f"ducklake:sqlite:{tmp_path}/env.sqlite")
    flagged = Workspace.resolve("flag", "md:gpucalc")
    assert flagged == Workspace(tmp_path / "flag", "md:gpucalc")
    # an empty flag is no flag, as an empty variable is no variable
    assert Workspace.resolve("", "").data_dir == tmp_path / "from-env"
    unset.setenv("GPUCALC_WAREHOUSE", "")
    assert Workspace.resolve().warehouse == f"{tmp_path}/from-env/warehouse.duckdb"


def test_the_warehouse_is_in_its_canonical_spelling(unset, tmp_path):
    assert Workspace.resolve(warehouse="w.duckdb").warehouse == f"{tmp_path}/w.duckdb"
    assert Workspace.resolve(warehouse="ducklake:duckdb:cat.ducklake").warehouse == f"ducklake:{tmp_path}/cat.ducklake"
    assert Workspace.resolve(warehouse="motherduck:gpucalc").warehouse == "md:gpucalc"


def test_a_warehouse_setting_gpucalc_cannot_use_is_one_sentence(unset, tmp_path):
    with pytest.raises(BadWarehouse, match="DuckDB, SQLite or PostgreSQL"):
        Workspace.resolve(tmp_path, "ducklake:mysql:x")
    unset.setenv("GPUCALC_WAREHOUSE", "s3://bucket/w.duckdb")
    with pytest.raises(BadWarehouse, match="GPUCALC_LAKE_DATA_PATH"):
        Workspace.resolve(tmp_path)


def test_the_lake_data_path_is_a_folder_or_a_prefix_ending_in_a_slash(unset, tmp_path):
    workspace = Workspace.resolve(tmp_path, f"ducklake:sqlite:{tmp_path}/c.sqlite")
    unset.setenv("GPUCALC_LAKE_DATA_PATH", "s3://bucket/gpucalc")
    assert workspace.lake_data_path == "s3://bucket/gpucalc/"
    unset.setenv("GPUCALC_LAKE_DATA_PATH", "files/")
    assert workspace.lake_data_path == f"{tmp_path}/files/"
    unset.setenv("HOME", str(tmp_path / "home"))
    unset.setenv("GPUCALC_LAKE_DATA_PATH", "~/lake")
    assert workspace.lake_data_path == f"{tmp_path}/home/lake/"


def test_the_cache_lives_outside_the_data_directory(unset, tmp_path):
    workspace = Workspace.resolve(tmp_path)
    unset.setenv("HOME", str(tmp_path / "home"))
    assert workspace.cache_dir == tmp_path / "home" / ".cache" / "gpucalc"
    unset.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert workspace.cache_dir == tmp_path / "xdg" / "gpucalc"
    unset.setenv("GPUCALC_CACHE_DIR", str(tmp_path / "mine"))
    assert workspace.cache_dir == tmp_path / "mine"
    unset.setenv("GPUCALC_CACHE_DIR", "off")
    assert workspace.cache_dir is None


def test_a_workspace_is_frozen_and_shows_no_password(unset, tmp_path):
    workspace = Workspace.resolve(tmp_path, "ducklake:postgres:host=db dbname=lake password=s3cret-Xq9")
    assert "s3cret-Xq9" in workspace.warehouse  # what the writer connects with
    assert "s3cret-Xq9" not in repr(workspace) and "password=***" in repr(workspace)
    with pytest.raises(dataclasses.FrozenInstanceError):
        workspace.data_dir = tmp_path / "other"


def test_a_numeric_setting_falls_back_to_its_default(monkeypatch):
    monkeypatch.delenv("GPUCALC_WRITE_WAIT_S", raising=False)
    assert environment.number("GPUCALC_WRITE_WAIT_S", 600.0, float, 0.0) == 600.0
    for value, expected in (("12.5", 12.5), ("-3", 0.0), ("soon", 600.0), ("", 600.0)):
        monkeypatch.setenv("GPUCALC_WRITE_WAIT_S", value)
        assert environment.number("GPUCALC_WRITE_WAIT_S", 600.0, float, 0.0) == expected, value


# Reads the environment itself, knowingly: the bench sets GPUCALC_CACHE_DIR for its run and puts
# back what was there.
RESTORES_ITS_OWN = {"warehouse/bench/__init__.py"}


def test_only_the_environment_module_reads_environment_variables():
    """Setting a variable (`os.environ[...] = `, setdefault) and handing the whole environment to a
    child process stay where they are; reading one goes through sources/kit/environment.py."""
    reads = re.compile(r"os\.getenv\(|os\.environ\.get\(|os\.environ\[[^\]]+\](?!\s*=[^=])|\bin os\.environ\b")
    found = [f"{path.relative_to(ROOT)}:{number}"
             for package in ("flows", "sources", "warehouse", "reports")
             for path in sorted((ROOT / package).rglob("*.py"))
             if str(path.relative_to(ROOT)) not in {"sources/kit/environment.py", *RESTORES_ITS_OWN}
             for number, line in enumerate(path.read_text().splitlines(), 1) if reads.search(line)]
    assert found == []
