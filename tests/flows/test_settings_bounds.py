"""Settings and flags out of any sane range are one sentence and a usage error (exit 2), before any
work: GPUCALC_THREADS (100,000 crashed DuckDB), GPUCALC_MEMORY_LIMIT (1KB failed mid-write with a
traceback), `--utilization` (1e-300 priced an owned GPU-hour at 300 digits)."""

from __future__ import annotations

import pytest

from tests.flows.cli_helpers import gpucalc
from warehouse.store import settings
from warehouse.store.location import BadWarehouse

COMMANDS = [
    ("ingest", "runs", "--file", "runs.csv"),
    ("sql", "select 1"),
    ("run", "--offline"),
    ("compare", "llama2-70b-offline"),
    ("predict", "--cases", "cases.csv", "--out", "out.csv"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        ("GPUCALC_THREADS", "100000", "GPUCALC_THREADS='100000' is not a number of threads from 1 to "),
        ("GPUCALC_THREADS", "0", "GPUCALC_THREADS='0' is not a number of threads from 1 to "),
        ("GPUCALC_MEMORY_LIMIT", "1KB", "GPUCALC_MEMORY_LIMIT='1KB' is not a DuckDB memory size of at least 64MB"),
    ],
)
def test_an_unusable_engine_setting_is_one_sentence_and_exit_2(tmp_path, monkeypatch, command, variable, value,
                                                                sentence):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs.csv").write_text("workload_id,gpu_name,gpu_count,value\n")
    (tmp_path / "cases.csv").write_text("benchmark,gpu_type,gpu_count\n")
    result = gpucalc(*command, "--data-dir", str(tmp_path / "data"), env={variable: value})
    assert result.exit_code == 2, result.output
    assert sentence in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())
    assert not (tmp_path / "out.csv").exists()


def test_threads_are_bounded_by_the_machine(monkeypatch):
    assert settings.max_threads() >= settings.MIN_MAX_THREADS
    monkeypatch.setenv("GPUCALC_THREADS", str(settings.max_threads()))
    assert settings.duckdb_config() == {"threads": settings.max_threads()}
    monkeypatch.setenv("GPUCALC_THREADS", str(settings.max_threads() + 1))
    with pytest.raises(BadWarehouse, match=f"from 1 to {settings.max_threads()} on this machine"):
        settings.duckdb_config()


@pytest.mark.parametrize("size", ["64MB", "4GB", "1.5GiB", "4 gb", "100000KB"])
def test_memory_sizes_duckdb_reads_are_taken(monkeypatch, size):
    monkeypatch.setenv("GPUCALC_MEMORY_LIMIT", size)
    assert settings.memory_limit() == size


@pytest.mark.parametrize("size", ["1KB", "63MB", "lots", "80%", "-1", "4", "none"])
def test_memory_sizes_too_small_or_unreadable_are_refused(monkeypatch, size):
    monkeypatch.setenv("GPUCALC_MEMORY_LIMIT", size)
    with pytest.raises(BadWarehouse, match="is not a DuckDB memory size of at least 64MB"):
        settings.memory_limit()


@pytest.mark.parametrize("command", [
    ("compare", "llama2-70b-offline"),
    ("whatif", "-w", "llama2-70b-offline", "-b", "hgx-h100-8", "-c", "hgx-b200-8"),
    ("serve", "--model", "llama2-70b", "--input-len", "100", "--output-len", "100", "--demand", "1000"),
], ids=lambda c: c[0])
@pytest.mark.parametrize("utilization", ["1e-300", "0.001", "0", "1.5"])
def test_utilization_outside_one_percent_to_all_is_a_usage_error(tmp_path, command, utilization):
    result = gpucalc(*command, "--utilization", utilization, "--data-dir", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"--utilization must be a fraction from 0.01 to 1, got {float(utilization):g}" in result.output
    assert len(result.output.strip().splitlines()) == 1
