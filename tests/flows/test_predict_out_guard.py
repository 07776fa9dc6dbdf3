"""`predict --out` never writes over what gpucalc keeps: the warehouse, a lake's catalog and Parquet
files, raw/ payloads, the journal, the --cases file, or any file it did not write itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.cli_helpers import gpucalc
from warehouse.questions.predict import OUTPUT_COLUMNS, written_by_predict
from warehouse.store.protected_paths import kept_state_reason
from warehouse.store.workspace import Workspace

CASES = "benchmark,scenario,gpu_type,gpu_count\nllama2-70b-99,Offline,NVIDIA H100-SXM-80GB,8\n"


@pytest.fixture
def data(tmp_path) -> Path:
    folder = tmp_path / "data"
    (folder / "raw" / "user_runs" / "2026-11-29").mkdir(parents=True)
    (folder / "raw" / "user_runs" / "2026-11-29" / "runs.csv").write_text("kept payload\n")
    (folder / "run_journal").mkdir()
    (folder / "run_journal" / "r1.json").write_text("{}")
    (folder / "warehouse.duckdb").write_bytes(b"DUCK" * 1000)
    (folder / "warehouse.duckdb.wal").write_bytes(b"WAL" * 10)
    (folder / "catalog.sqlite").write_bytes(b"SQLite format 3\x00" * 100)
    (folder / "lake" / "main").mkdir(parents=True)
    (folder / "lake" / "main" / "part.parquet").write_bytes(b"PAR1")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def predict(data: Path, out: Path, cases: Path, warehouse: str | None = None):
    extra = ["--warehouse", warehouse] if warehouse else []
    return gpucalc("predict", "--cases", str(cases), "--out", str(out), "--data-dir", str(data), *extra)


@pytest.mark.parametrize(
    ("out", "warehouse"),
    [
        ("warehouse.duckdb", None),
        ("warehouse.duckdb.wal", None),
        ("link-to-warehouse", None),  # a symlink is what it points at
        ("raw/user_runs/2026-11-29/runs.csv", None),
        ("raw/new.csv", None),
        ("run_journal/r1.json", None),
        ("catalog.sqlite", "ducklake:sqlite:{data}/catalog.sqlite"),
        ("catalog.sqlite-wal", "ducklake:sqlite:{data}/catalog.sqlite"),
        ("lake/main/part.parquet", "ducklake:sqlite:{data}/catalog.sqlite"),
    ],
)
def test_predict_refuses_to_write_over_the_warehouses_kept_state(data, tmp_path, out, warehouse):
    (data / "link-to-warehouse").symlink_to(data / "warehouse.duckdb")
    cases = tmp_path / "cases.csv"
    cases.write_text(CASES)
    before = snapshot(data)
    result = predict(data, data / out, cases, warehouse.format(data=data) if warehouse else None)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"predict: --out {data / out} is part of the warehouse's kept state (")
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert snapshot(data) == before


def test_predict_refuses_to_write_over_its_own_cases(data, tmp_path):
    cases = tmp_path / "cases.csv"
    cases.write_text(CASES)
    result = predict(data, cases, cases)
    assert result.exit_code == 2
    assert result.output == f"predict: --out {cases} is the --cases file: name a new file, so the cases stay\n"
    assert cases.read_text() == CASES


def test_predict_refuses_a_file_it_did_not_write_and_a_folder(data, tmp_path):
    cases = tmp_path / "cases.csv"
    cases.write_text(CASES)
    notes = tmp_path / "notes.csv"
    notes.write_text("my,own\nnotes,here\n")
    result = predict(data, notes, cases)
    assert result.exit_code == 2
    assert result.output == (f"predict: --out {notes} exists and is not a predictions CSV gpucalc wrote: "
                             "name a new file or remove it first\n")
    assert notes.read_text() == "my,own\nnotes,here\n"
    result = predict(data, tmp_path, cases)
    assert result.exit_code == 2
    assert result.output == f"predict: --out {tmp_path} is a folder: name the CSV file to write\n"


def test_a_previous_predictions_file_may_be_written_again(tmp_path):
    previous = tmp_path / "out.csv"
    previous.write_text(",".join(["benchmark", *OUTPUT_COLUMNS]) + "\nx" + "," * len(OUTPUT_COLUMNS) + "\n")
    assert written_by_predict(previous)
    (tmp_path / "w.duckdb").write_bytes(b"\x00\xffDUCK")
    assert not written_by_predict(tmp_path / "w.duckdb")


def test_an_export_folder_inside_the_lakes_data_path_is_refused_too(data):
    lake = Workspace.resolve(data, f"ducklake:sqlite:{data}/catalog.sqlite")
    assert kept_state_reason(data / "lake" / "export", lake) is not None
    assert kept_state_reason(data / "export", lake) is None
    assert kept_state_reason(data / "export", Workspace.resolve(data, str(data / "warehouse.duckdb"))) is None
