"""User runs: the seed DFlash run in CSV and JSONL, defaults, and per-row rejects."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sources import user_runs
from sources.base import Payload, SourceError
from sources.contracts import BENCHMARK_RESULT

FIXTURES = Path(__file__).parents[1] / "fixtures" / "user_runs"
DAY = date(2026, 6, 2)


def parse_file(name: str):
    path = FIXTURES / name
    return user_runs.parse(Payload("user_runs", name, path.read_bytes(), str(path)), DAY)


def parse_lines(*records) -> object:
    body = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode()
    return user_runs.parse(Payload("user_runs", "runs.jsonl", body, "/data/runs.jsonl"), DAY)


SEED = {"workload_id": "w", "gpu_name": "H100", "gpu_count": 8, "value": 1000}


@pytest.mark.parametrize("name", ["runs.csv", "runs.jsonl"])
def test_seed_dflash_run(name):
    parsed = parse_file(name)
    assert parsed.rejects == [] and dict(parsed.rows.schema) == BENCHMARK_RESULT
    run = parsed.rows.row(0, named=True)
    assert run["workload_id"] == run["benchmark"] == "dflash-qwen36-27b"
    assert (run["suite"], run["round"], run["scenario"]) == ("user_run", None, "training")
    assert run["gpu_name"] == "RTX PRO 6000 Blackwell Workstation Edition"
    assert (run["gpu_count"], run["nodes"], run["role_split"]) == (4, 1, "3+1")
    # 14.8 Ktok/s on 4 GPUs: 14800 tokens/s, 3700 per GPU
    assert (run["metric"], run["value"], run["unit"]) == ("tokens_per_s", 14800.0, "tokens/s")
    assert run["per_gpu_value"] == pytest.approx(3700.0)
    assert run["measured_at"] == DAY and run["source_ref"].endswith(name) and run["source_row"] == 1


def test_defaults_and_training_metric():
    parsed = parse_lines(
        SEED,
        SEED
        | {
            "metric": "time_to_train_min",
            "value": 95.5,
            "measured_at": "2026-05-01",
            "precision": "FP8",
            "nodes": 2,
        },
    )
    first, second = parsed.rows.iter_rows(named=True)
    assert (first["metric"], first["unit"], first["nodes"]) == ("tokens_per_s", "tokens/s", 1)
    assert (second["unit"], second["per_gpu_value"], second["nodes"]) == ("min", None, 2)
    assert second["measured_at"] == date(2026, 5, 1) and second["precision"] == "fp8"


@pytest.mark.parametrize(
    "record, rule",
    [
        ({k: v for k, v in SEED.items() if k != "workload_id"}, "run_missing_field"),
        (SEED | {"value": "fast"}, "run_not_a_number"),
        (SEED | {"value": -3}, "run_bad_value"),
        (SEED | {"gpu_count": 2.5}, "run_not_a_number"),
        (SEED | {"metric": "samples_per_s"}, "run_bad_metric"),
        (SEED | {"role_split": "3+1"}, "run_role_split_mismatch"),
        (SEED | {"precision": "int4"}, "run_bad_precision"),
        (SEED | {"measured_at": "yesterday"}, "run_bad_date"),
        (SEED | {"tflops": 500}, "run_unknown_field"),
        ('{"workload_id": "w", "gpu_name": "H1', "run_bad_json"),
    ],
)
def test_row_problems_are_rejects(record, rule):
    parsed = parse_lines(SEED, record)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, rule)]
    assert parsed.rejects[0].detail.startswith("run 2")
    assert parsed.rows.height == 1


@pytest.mark.parametrize(
    "name, body, message",
    [
        ("runs.jsonl", b"", "no runs"),
        ("runs.csv", b"workload,gpu_name,gpu_count,value\nw,H100,8,1\n", "missing \\['workload_id'\\]"),
        ("runs.txt", b"x", "must end in"),
    ],
)
def test_unusable_file_raises_source_error(name, body, message):
    with pytest.raises(SourceError, match=message):
        user_runs.parse(Payload("user_runs", name, body, name), DAY)


def test_file_only():
    with pytest.raises(SourceError, match="file-only"):
        user_runs.fetch(None, DAY)
    assert user_runs.SPEC.live is False and user_runs.SPEC.kind == "benchmarks"
