"""MLPerf parsing: bundles built from the real-format fixtures under tests/fixtures/mlperf
(see its README for where each file came from), numbers checked against the files."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

import pytest

from sources import mlperf
from sources.kit.contracts import BENCHMARK_RESULT
from sources.kit.spec import Payload, SourceError
from sources.mlperf import benchmarks, inference, mllog

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mlperf"
INFERENCE = FIXTURES / "inference_results_v5.1"
TRAINING = FIXTURES / "training_results_v5.1"
DAY = date(2026, 6, 2)


def parsed(root: Path):
    """Every bundle of a checkout parsed: (rows by (submitter, benchmark, scenario), rejects, payloads)."""
    payloads = mlperf.from_path(root)
    rows, rejects = {}, []
    for payload in payloads:
        result = mlperf.parse(payload, DAY)
        assert dict(result.rows.schema) == BENCHMARK_RESULT
        for row in result.rows.iter_rows(named=True):
            rows[(row["submitter"], row["benchmark"], row["scenario"])] = row
        rejects += result.rejects
    return rows, rejects, payloads


@pytest.fixture(scope="module")
def inference_results():
    return parsed(INFERENCE)


@pytest.fixture(scope="module")
def training_results():
    return parsed(TRAINING)


def test_tokens_per_second_is_the_summary_value(inference_results):
    rows, _, _ = inference_results
    # "Tokens per second: 1086.01" (Offline) and "Completed tokens per second: 584.01" (Server)
    cisco = rows[("Cisco", "llama3_1-405b", "Offline")]
    azure = rows[("Azure", "llama3.1-405b", "Server")]
    assert (cisco["value"], cisco["unit"], cisco["metric"]) == (1086.01, "tokens/s", "tokens_per_s")
    assert azure["value"] == 584.01
    assert rows[("ExampleCo", "llama2-70b-99", "Offline")]["value"] == 24000.0
    assert rows[("ExampleCo", "llama2-70b-99", "Server")]["value"] == 20800.0
    # both spellings of Llama-3.1-405B map to the same workload
    assert (cisco["workload_id"], azure["workload_id"]) == ("llama31-405b-offline", "llama31-405b-server")
    assert cisco["model"] == azure["model"] == "Llama-3.1-405B"


def test_gpu_name_count_and_memory_come_from_the_system_json(inference_results):
    rows, _, _ = inference_results
    cisco = rows[("Cisco", "llama3_1-405b", "Offline")]
    # 8 accelerators per node x 2 nodes; name exactly as accelerator_model_name spells it
    assert (cisco["gpu_name"], cisco["gpu_count"], cisco["nodes"], cisco["gpu_memory_gb"]) == (
        "NVIDIA H200-SXM-141GB", 16, 2, 141.0,
    )
    assert cisco["per_gpu_value"] == pytest.approx(1086.01 / 16)
    azure = rows[("Azure", "llama3.1-405b", "Server")]
    assert (azure["gpu_name"], azure["gpu_count"], azure["gpu_memory_gb"]) == ("NVIDIA GB200", 4, 186.0)
    assert azure["software"] == "TensorRT 10.11, CUDA 12.9" and azure["system"] == "ND_GB200_v6"
    assert (azure["suite"], azure["round"], azure["measured_at"], azure["source"]) == (
        "MLPerf Inference", "v5.1", DAY, "mlperf",
    )


def test_every_benchmark_folder_is_loaded_or_rejected_with_its_path(inference_results):
    rows, rejects, payloads = inference_results
    accounted = {(r["system"], r["benchmark"]) for r in rows.values()}
    accounted |= {(r["system"], name) for r in rows.values() for name in r["source_ref"].split("filed under ")[1:]}
    accounted |= {(r.row["system"], r.row["path"].split("/")[4]) for r in rejects}
    listed = {(json.loads(p.body)["system"], name) for p in payloads for name in json.loads(p.body)["folders"]}
    assert listed == {(system, name.rstrip(")")) for system, name in accounted}
    by_rule = {}
    for r in rejects:
        by_rule.setdefault(r.rule, []).append(r.row["path"])
    base = "closed/ExampleCo/results/EX8_H100_SXM_80GBx8_TRT"
    assert sorted(by_rule["mlperf_out_of_scope"]) == [f"{base}/resnet50", f"{base}/whisper"]
    assert by_rule["mlperf_unknown_benchmark"] == [f"{base}/llama4-scout-17b-16e"]
    interactive = f"{base}/llama2-70b-99/Interactive/performance/run_1/mlperf_log_summary.txt"
    assert by_rule["mlperf_invalid_result"] == [interactive]
    unknown = next(r for r in rejects if r.rule == "mlperf_unknown_benchmark")
    assert "llama4-scout-17b-16e" in unknown.detail and unknown.row["submitter"] == "ExampleCo"


def test_a_language_model_without_a_gpucalc_workload_loads_with_a_null_workload(inference_results):
    rows, _, _ = inference_results
    oss = rows[("ExampleCo", "gpt-oss-120b", "Offline")]
    assert (oss["workload_id"], oss["value"], oss["model"]) == (None, 9600.0, "gpt-oss-120b")


def test_one_run_filed_under_two_accuracy_targets_counts_once(inference_results):
    rows, _, _ = inference_results
    example = {k: r for k, r in rows.items() if k[0] == "ExampleCo" and k[1].startswith("llama2-70b")}
    # -99.9 holds byte-identical copies of the -99 Offline and Server summaries: one row each
    assert sorted(example) == [
        ("ExampleCo", "llama2-70b-99", "Offline"), ("ExampleCo", "llama2-70b-99", "Server"),
    ]
    assert all("also filed under llama2-70b-99.9" in r["source_ref"] for r in example.values())
    # ASUSTeK's -99 and -99.9 are two different runs (35075.1 and 34887.2 tokens/s): both count
    asus = {k[1]: r["value"] for k, r in rows.items() if k[0] == "ASUSTeK"}
    assert asus == {"llama2-70b-99": 35075.1, "llama2-70b-99.9": 34887.2}


def test_a_system_mixing_accelerator_models_is_rejected(inference_results):
    rows, rejects, _ = inference_results
    assert not [k for k in rows if k[0] == "MangoBoost"]
    [mixed] = [r for r in rejects if r.row["submitter"] == "MangoBoost"]
    assert mixed.rule == "mlperf_mixed_accelerators" and "(x32)" in mixed.detail
    assert mixed.row["path"].endswith("32xMI300X_2xEPYC_9534_16xMI325X_2xEPYC_9655/llama2-70b-99")


def test_declared_weights_give_the_precision(inference_results):
    rows, _, _ = inference_results
    assert rows[("ExampleCo", "llama2-70b-99", "Offline")]["precision"] == "fp8"
    assert rows[("ExampleCo", "llama2-70b-99", "Server")]["precision"] is None  # no measurements JSON


def test_training_olympic_mean_scaling_and_step_time(training_results):
    rows, _, _ = training_results
    run = rows[("ExampleCo", "llama31_8b", "training")]
    # runs of 100, 102, 101, 110, 99 min: drop 99 and 110 -> mean 101.0; x scaling 1.02 = 103.02
    assert run["value"] == pytest.approx(103.02) and (run["metric"], run["unit"]) == ("time_to_train_min", "min")
    # running samples_count: blocks of 12288 samples / gbs 32 = 384 steps at 1.2 s and 1.4 s -> 1.3 s
    assert run["median_step_s"] == pytest.approx(1.3)
    assert (run["global_batch_size"], run["seq_len"], run["precision"]) == (32.0, 8192.0, "fp8")
    assert (run["workload_id"], run["gpu_name"], run["gpu_count"]) == ("llama31-8b-pretrain", "AMD Instinct MI355X", 8)
    assert run["measured_at"] == date(2025, 10, 2) and "olympic mean of 5 runs x scaling 1.02" in run["source_ref"]


def test_nemo_logs_give_a_step_time_from_metadata_step(training_results):
    rows, _, _ = training_results
    lora = rows[("NVIDIA", "llama2_70b_lora", "training")]
    # run_stop - run_start: 340742, 341945, 342709 ms; the olympic mean of 3 keeps the middle one
    assert lora["value"] == pytest.approx(341945 / 60000)
    # 15 blocks (5 per run, step 0->192, 192->240, ...); the median is run 2's block 288->336:
    # (1759906127025 - 1759906091228) ms / 48 steps
    assert lora["median_step_s"] == pytest.approx((1759906127025 - 1759906091228) / 1000 / 48)
    assert (lora["gpu_name"], lora["gpu_count"], lora["nodes"]) == ("NVIDIA Blackwell Ultra GPU (GB300)", 8, 2)
    assert lora["gpu_memory_gb"] == pytest.approx(284208 * 1024**2 / 1e9, abs=1e-3)  # "284208 MiB"
    assert (lora["workload_id"], lora["global_batch_size"]) == ("llama2-70b-lora", 8.0)
    assert lora["measured_at"] == date(2025, 10, 8)


def test_nemo_logs_without_step_counts_use_the_logged_step_time():
    # v5.0 NeMo llama31_405b: block events carry samples_count 0 at both ends and no step
    run = mllog.read_run((FIXTURES / "logs" / "nemo_v5.0_llama31_405b_result_0_trimmed.txt").read_text())
    assert run.step_seconds == [54.71267318725586, 57.626834869384766, 54.96613311767578, 55.016766262019516]
    assert run.minutes == pytest.approx((1744826460888 - 1744812623887) / 60000)
    assert (run.global_batch_size, run.seq_len) == (1152.0, 8192.0)


def test_training_folders_are_loaded_or_rejected(training_results):
    _, rejects, _ = training_results
    assert {(r.rule, r.row["path"].rsplit("/", 1)[1]) for r in rejects} == {
        ("mlperf_out_of_scope", "flux1"), ("mlperf_unknown_benchmark", "llama31_70b_lora"),
    }


@pytest.mark.parametrize(
    "suite, folder, kind, workload",
    [
        ("inference", "llama2-70b-99", "llm", "llama2-70b"),
        ("inference", "llama2-70b-99.9", "llm", "llama2-70b"),
        ("inference", "llama3.1-405b", "llm", "llama31-405b"),
        ("inference", "llama3_1-405b", "llm", "llama31-405b"),
        ("inference", "llama3.1-8b", "llm", "llama31-8b"),
        ("inference", "llama3_1-8b", "llm", "llama31-8b"),
        ("inference", "deepseek-r1", "llm", "deepseek-r1"),
        ("inference", "mixtral-8x7b", "llm", "mixtral-8x7b"),
        ("inference", "llama2-70b-interactive-99.9", "llm", "llama2-70b"),
        ("inference", "gpt-oss-120b", "llm", None),
        ("inference", "resnet50", "out_of_scope", None),
        ("inference", "dlrm-v2-99.9", "out_of_scope", None),
        ("inference", "stable-diffusion-xl", "out_of_scope", None),
        ("inference", "llama4-maverick", "unknown", None),
        ("training", "llama2_70b_lora", "llm", "llama2-70b-lora"),
        ("training", "llama31_405b", "llm", "llama31-405b-pretrain"),
        ("training", "llama31_8b", "llm", "llama31-8b-pretrain"),
        ("training", "gpt3", "llm", "gpt3-175b-pretrain"),
        ("training", "dlrm_dcnv2", "out_of_scope", None),
        ("training", "llama3_70b", "unknown", None),
    ],
)
def test_folder_spellings(suite, folder, kind, workload):
    found = benchmarks.classify(suite, folder)
    assert (found.kind, found.workload) == (kind, workload)


@pytest.mark.parametrize(
    "benchmark, scenario, expected",
    [
        ("llama2-70b-99", "Offline", "llama2-70b-offline"),
        ("llama2-70b-99.9", "Interactive", "llama2-70b-interactive"),
        ("llama2-70b-interactive-99", "Server", "llama2-70b-interactive"),  # v5.0's own folder
        ("llama3_1-405b", "Server", "llama31-405b-server"),
        ("llama3.1-8b", "Offline", "llama31-8b-offline"),
        ("deepseek-r1", "Interactive", "deepseek-r1-interactive"),
        ("gpt-oss-120b", "Offline", None),
        ("llama3.1-8b", "SingleStream", None),
        ("resnet50", "Offline", None),
        ("llama31_405b", "training", "llama31-405b-pretrain"),
        ("bert", "training", None),
    ],
)
def test_workload_id(benchmark, scenario, expected):
    assert mlperf.workload_id(benchmark, scenario) == expected


def test_summary_reader_and_precision():
    text = (
        "Scenario : Server\nCompleted tokens per second: 20800.00\nResult is : VALID\n"
        "ttft_latency (ns): 2000000000\n"
    )
    values = inference.read_summary(text)
    assert values["result is"] == "VALID" and values["ttft_latency (ns)"] == "2000000000"
    assert inference.token_rate(values) == 20800.0
    assert inference.token_rate(inference.read_summary("Tokens per second (inferred): 13096.6\n")) is None
    assert inference.token_rate({"tokens per second": "nan"}) is None
    assert inference.precision("NVFP4 weights") == "fp4" and inference.precision("int8") is None
    assert inference.precision("fp8 and fp16") is None


def test_olympic_mean_with_failed_runs():
    assert mllog.olympic_mean([10, 12, 11, math.inf]) == pytest.approx(11.5)
    assert mllog.olympic_mean([10, 12, math.inf, math.inf]) is None
    assert mllog.olympic_mean([10, 12]) is None


def _edited(payload: Payload, edit) -> Payload:
    bundle = json.loads(payload.body)
    edit(bundle)
    return Payload("mlperf", payload.name, json.dumps(bundle).encode(), payload.url)


def test_two_failed_runs_reject_the_score(training_results):
    payload = next(p for p in training_results[2] if "ExampleCo" in p.name)

    def fail_two(bundle):
        for path in [p for p in bundle["files"] if p.endswith(("result_1.txt", "result_2.txt"))]:
            bundle["files"][path] = bundle["files"][path].replace('"status": "success"', '"status": "aborted"')

    result = mlperf.parse(_edited(payload, fail_two), DAY)
    assert result.rows.is_empty()
    assert "mlperf_training_no_score" in [r.rule for r in result.rejects]


def test_system_problems_reject_each_llm_folder_and_bad_bundles_raise(inference_results):
    payload = next(p for p in inference_results[2] if "Cisco" in p.name)

    def no_name(bundle):
        path = next(p for p in bundle["files"] if "/systems/" in p)
        bundle["files"][path] = bundle["files"][path].replace('"accelerator_model_name"', '"accelerator"')

    result = mlperf.parse(_edited(payload, no_name), DAY)
    assert result.rows.is_empty() and [r.rule for r in result.rejects] == ["mlperf_bad_system"]
    assert "accelerator_model_name" in result.rejects[0].detail
    with pytest.raises(SourceError, match="not JSON"):
        mlperf.parse(Payload("mlperf", payload.name, payload.body[:200], payload.url), DAY)
    with pytest.raises(SourceError, match="lists no benchmark folders"):
        mlperf.parse(_edited(payload, lambda b: b.update(folders={})), DAY)


def test_a_failed_round_is_kept_and_parses_to_its_reason():
    from sources.mlperf import bundle

    payload = bundle.failure("inference", "mlcommons/inference_results_v5.1", "listing truncated")
    assert payload.name == "inference_results_v5.1__FAILED.json"
    with pytest.raises(SourceError, match="round not fetched: listing truncated"):
        mlperf.parse(payload, DAY)


def test_spec():
    spec = mlperf.SPEC
    assert (spec.kind, spec.key_env, spec.live, spec.from_path) == ("benchmarks", None, True, mlperf.from_path)


def test_bundles_kept_in_the_first_format_still_replay():
    """Days kept before bundles covered a whole system: one (submitter, system, benchmark) each."""
    base = INFERENCE / "closed/ExampleCo"
    files = {
        f"closed/ExampleCo/{p.relative_to(base).as_posix()}": p.read_text()
        for p in [base / "systems/EX8_H100_SXM_80GBx8_TRT.json", *base.glob("results/*/llama2-70b-99/*/*/run_1/*")]
    }
    old = {
        "format": "gpucalc.mlperf.bundle/1", "suite": "inference", "repo": "mlcommons/inference_results_v5.1",
        "commit": "a" * 40, "submitter": "ExampleCo", "system": "EX8_H100_SXM_80GBx8_TRT",
        "benchmark": "llama2-70b-99", "files": files,
    }
    result = mlperf.parse(Payload("mlperf", "old.json", json.dumps(old).encode(), "kept"), DAY)
    assert sorted(result.rows["value"].to_list()) == [20800.0, 24000.0]
    assert set(result.rows["round"].to_list()) == {"v5.1"}
