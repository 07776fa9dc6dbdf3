"""MLPerf at full scale: a synthetic closed-division inference tree the size of v5.1's LLM part
(about 1,000 files, 20 MB) goes from `from_path` through `parse` in well under 2 minutes.

The full-size timing is marked `slow` and runs only when asked for:
    .venv/bin/pytest -m slow tests/sources/test_mlperf_scale.py -s
A small tree built by the same generator runs every time, so the generator cannot rot."""

from __future__ import annotations

import json
import random
import time
from datetime import date
from pathlib import Path

import pytest

from sources import mlperf
from sources.kit.contracts import BENCHMARK_RESULT

DAY = date(2026, 6, 2)
LLM = ("llama2-70b-99", "llama3.1-405b", "llama3_1-8b", "mixtral-8x7b", "deepseek-r1", "gpt-oss-120b")
SUMMARY = """================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : {scenario}
Mode     : PerformanceOnly
{rate_line}
Result is : VALID
  Min duration satisfied : Yes
  Min queries satisfied : Yes
  Early stopping satisfied: Yes

================================================
Additional Stats
================================================
Min latency (ns)                : {lat}
Max latency (ns)                : {lat2}
Mean latency (ns)               : {lat}
50.00 percentile latency (ns)   : {lat}
90.00 percentile latency (ns)   : {lat2}
95.00 percentile latency (ns)   : {lat2}
97.00 percentile latency (ns)   : {lat2}
99.00 percentile latency (ns)   : {lat2}
99.90 percentile latency (ns)   : {lat2}


================================================
Test Parameters Used
================================================
samples_per_query : 316800
target_qps : 120
ttft_latency (ns): 2000000000
tpot_latency (ns): 200000000
max_async_queries : 1
min_duration (ms): 2400000
max_duration (ms): 0
min_query_count : 1
max_query_count : 0
qsl_rng_seed : {seed}
sample_index_rng_seed : 14771362308971278857
schedule_rng_seed : 18209322760996052031
accuracy_log_rng_seed : 0
accuracy_log_probability : 0
accuracy_log_sampling_target : 0
print_timestamps : 0
performance_issue_unique : 0
performance_issue_same : 0
performance_issue_same_index : 0
performance_sample_count : 24576

No warnings encountered during test.

No errors encountered during test.
"""


def _summary(rng: random.Random, scenario: str) -> str:
    rate = round(rng.uniform(500, 60000), 2)
    key = "Tokens per second" if scenario == "Offline" else "Completed tokens per second"
    return SUMMARY.format(
        scenario=scenario, rate_line=f"{key}: {rate}", lat=rng.randrange(10**9, 10**10),
        lat2=rng.randrange(10**12, 10**13), seed=rng.randrange(10**18),
    )


def _padding(rng: random.Random, kilobytes: int, line: str) -> str:
    """A detail log or accuracy log of about `kilobytes` KB, in the shape of the real ones."""
    rows, size = [], 0
    while size < kilobytes * 1024:
        rows.append(line.format(t=rng.randrange(10**15), v=rng.random(), h=f"{rng.getrandbits(256):064x}"))
        size += len(rows[-1]) + 1
    return "\n".join(rows) + "\n"


def write_tree(root: Path, systems: int, seed: int = 7) -> dict[str, int]:
    """Write a closed-division results tree in the real layout; returns its file count and bytes."""
    rng = random.Random(seed)
    detail = ':::MLLOG {{"key": "generated_tokens", "value": {v}, "time_ms": {t}, "namespace": "mlperf::logging"}}'
    accuracy = '{{"seq_id": {t}, "qsl_idx": {t}, "data": "{h}{h}"}},'
    count = size = 0

    def put(path: Path, text: str) -> None:
        nonlocal count, size
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        count, size = count + 1, size + len(text)

    for index in range(systems):
        owner = root / "closed" / f"Submitter{index // 2:02d}"
        system = f"SYS{index:03d}_8xGPU_TRT"
        put(owner / "systems" / f"{system}.json", json.dumps({
            "accelerator_model_name": rng.choice(["NVIDIA H200-SXM-141GB", "NVIDIA B200-SXM-180GB", "AMD MI325X"]),
            "accelerator_memory_capacity": "141 GB", "accelerators_per_node": 8, "number_of_nodes": 1,
            "framework": "TensorRT 10.11, CUDA 12.9", "division": "closed", "submitter": owner.name,
        }, indent=4))
        for bench in rng.sample(LLM, 3):
            for scenario in ("Offline", "Server"):
                results = owner / "results" / system / bench / scenario
                put(results / "performance" / "run_1" / "mlperf_log_summary.txt", _summary(rng, scenario))
                put(results / "performance" / "run_1" / "mlperf_log_detail.txt", _padding(rng, 40, detail))
                put(results / "accuracy" / "mlperf_log_accuracy.json", _padding(rng, 40, accuracy))
                measurements = owner / "measurements" / system / bench / scenario / f"{system}_{scenario}.json"
                put(measurements, json.dumps({"weight_data_types": "fp8", "input_data_types": "int32"}))
        # the same run filed under both accuracy targets, and a benchmark gpucalc does not model
        twin = owner / "results" / system / "llama2-70b-99.9" / "Offline" / "performance" / "run_1"
        source = owner / "results" / system / "llama2-70b-99" / "Offline" / "performance" / "run_1"
        put(twin / "mlperf_log_summary.txt", (source / "mlperf_log_summary.txt").read_text()
            if source.exists() else _summary(rng, "Offline"))
        put(owner / "results" / system / "retinanet" / "Offline" / "performance" / "run_1" / "mlperf_log_summary.txt",
            _summary(rng, "Offline"))
    return {"files": count, "bytes": size}


def load(root: Path):
    payloads = mlperf.from_path(root)
    results = [mlperf.parse(p, DAY) for p in payloads]
    return payloads, results


def test_a_small_synthetic_tree_loads_every_result(tmp_path):
    root = tmp_path / "inference_results_v5.1"
    write_tree(root, systems=4)
    payloads, results = load(root)
    assert len(payloads) == 4 and all(dict(r.rows.schema) == BENCHMARK_RESULT for r in results)
    rows = sum(r.rows.height for r in results)
    rules = [j.rule for r in results for j in r.rejects]
    assert rows == 4 * 3 * 2 + sum("llama2-70b-99" not in json.loads(p.body)["folders"] for p in payloads)
    assert rules.count("mlperf_out_of_scope") == 4 and set(rules) == {"mlperf_out_of_scope"}


@pytest.mark.slow
def test_a_full_size_tree_parses_well_under_two_minutes(tmp_path):
    root = tmp_path / "inference_results_v5.1"
    size = write_tree(root, systems=40)
    started = time.perf_counter()
    payloads, results = load(root)
    seconds = time.perf_counter() - started
    rows = sum(r.rows.height for r in results)
    print(f"\nsynthetic tree: {size['files']} files, {size['bytes'] / 1e6:.1f} MB, {len(payloads)} bundles, "
          f"{rows} rows: from_path + parse in {seconds:.2f} s")
    assert size["files"] >= 900 and size["bytes"] >= 18e6
    assert rows >= 40 * 3 * 2 and seconds < 60
