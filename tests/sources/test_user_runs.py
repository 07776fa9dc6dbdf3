"""User runs: the seed DFlash run in CSV and JSONL, defaults, and per-row rejects."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sources import user_runs
from sources.kit.contracts import BENCHMARK_RESULT
from sources.kit.spec import Payload, SourceError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "user_runs"
DAY = date(2026, 6, 2)


def parse_file(name: str):
    path = FIXTURES / name
    return user_runs.parse(Payload("user_runs", name, path.read_bytes(), str(path)), DAY)


def parse_lines(*records) -> object:
    body = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode()
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
        (SEED | {"measured_at": "yesterday"}, "unparseable_date"),
        (SEED | {"tflops": 500}, "run_unknown_field"),
        ('{"workload_id": "w", "gpu_name": "H1', "malformed_row"),
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


# --- one bad record is one reject, whatever it holds ----------------------------------------------

@pytest.mark.parametrize(
    "change, rule",
    [
        ({"value": [14800]}, "wrong_type"),  # a list where a number belongs
        ({"gpu_name": ["H100"]}, "wrong_type"),
        ({"measured_at": 20260101}, "unparseable_date"),  # an int once became year 57440 downstream
        ({"measured_at": "20260101"}, "unparseable_date"),
        ({"measured_at": "1999-12-31"}, "unparseable_date"),
        ({"value": "inf"}, "non_finite_value"),
        ({"value": "nan"}, "non_finite_value"),  # once reported as "missing"
        ({"gpu_count": 1e300}, "implausible_value"),
        ({"gpu_count": 10**30}, "implausible_value"),
        ({"scenario": "Batch"}, "unknown_scenario"),
    ],
)
def test_hostile_values_are_one_named_reject(change, rule):
    parsed = parse_lines(SEED, SEED | change, SEED)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, rule)]
    assert parsed.rows["source_row"].to_list() == [1, 3]


def test_nan_and_infinity_literals_in_jsonl_are_named():
    parsed = parse_lines(SEED, '{"workload_id": "w", "gpu_name": "H100", "gpu_count": 8, "value": NaN}',
                         '{"workload_id": "w", "gpu_name": "H100", "gpu_count": 8, "value": Infinity}')
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, "non_finite_value"), (3, "non_finite_value")]


def test_a_huge_but_finite_value_loads_and_the_warehouse_judges_it():
    parsed = parse_lines(SEED | {"value": 1e300})
    assert parsed.rejects == [] and parsed.rows["value"][0] == 1e300
    assert parsed.rows["per_gpu_value"][0] == pytest.approx(1e300 / 8)


def test_scenarios_are_normalised_and_memory_passes_through():
    parsed = parse_lines(SEED | {"scenario": "offline"}, SEED | {"scenario": "SERVER", "gpu_memory_gb": 96})
    assert parsed.rows["scenario"].to_list() == ["Offline", "Server"]
    assert parsed.rows["gpu_memory_gb"].to_list() == [None, 96.0]


def test_a_file_cut_mid_record_rejects_the_last_record_only():
    body = (json.dumps(SEED) + "\n" + json.dumps(SEED | {"value": 1234}))[:-3].encode()  # ...1234} -> ...12
    parsed = user_runs.parse(Payload("user_runs", "runs.jsonl", body, "runs.jsonl"), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, "malformed_row")]
    csv_body = b"workload_id,gpu_name,gpu_count,value\nw,H100,8,1000\nw,H100,8,12"  # 1234 cut to 12
    parsed = user_runs.parse(Payload("user_runs", "runs.csv", csv_body, "runs.csv"), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, "possibly_truncated")]
    assert "add a final newline" in parsed.rejects[0].detail


def test_a_csv_row_with_an_extra_field_is_malformed():
    body = b"workload_id,gpu_name,gpu_count,value\nw,H100,8,1000\nw,H100,8,14,800\n"
    parsed = user_runs.parse(Payload("user_runs", "runs.csv", body, "runs.csv"), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, "malformed_row")]
    assert parsed.rows["value"].to_list() == [1000.0]
