"""MLPerf source: fetch bundles from a fake GitHub (tree API + raw files laid out like the
results repositories under tests/fixtures/mlperf), parse them with hand-worked numbers,
and check the faults. Never the network."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

import pytest
import requests

from sources import _mlperf_inference as inference
from sources import _mlperf_training as training
from sources import mlperf
from sources.base import Payload, SourceError
from sources.contracts import BENCHMARK_RESULT
from sources.http import make_session
from tests.sources.fakes import RoutedAdapter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mlperf"
DAY = date(2026, 6, 2)
SHA = "0123456789abcdef0123456789abcdef01234567"
REPOS = (("inference", "mlcommons/inference_results_v5.1"), ("training", "mlcommons/training_results_v5.1"))
API = "https://api.github.com/repos"
RAW = "https://raw.githubusercontent.com"


def github_routes() -> dict[str, list]:
    """The fixture directories served as two repositories at commit SHA."""
    routes: dict[str, list] = {}
    for _suite, repo in REPOS:
        root = FIXTURES / repo.split("/")[1]
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        tree = [{"path": p, "mode": "100644", "type": "blob", "sha": "f" * 40, "size": 1} for p in files]
        tree += [
            {"path": "README.md", "mode": "100644", "type": "blob", "sha": "e" * 40, "size": 1},
            {"path": files[0].split("/")[0], "mode": "040000", "type": "tree", "sha": "d" * 40},
        ]
        routes[f"{API}/{repo}/commits/HEAD"] = [(200, SHA.encode())]
        routes[f"{API}/{repo}/git/trees/{SHA}?recursive=1"] = [
            (200, json.dumps({"sha": "c" * 40, "tree": tree, "truncated": False}).encode())
        ]
        for path in files:
            routes[f"{RAW}/{repo}/{SHA}/{path}"] = [(200, (root / path).read_bytes())]
    return routes


def fetch_with(routes, monkeypatch, repos=REPOS) -> tuple[list[Payload], RoutedAdapter]:
    monkeypatch.setattr(mlperf, "REPOS", repos)
    adapter = RoutedAdapter(routes)
    session = make_session(backoff_factor=0)
    session.mount("https://", adapter)
    return mlperf.fetch(session, DAY), adapter


@pytest.fixture
def payloads(monkeypatch) -> list[Payload]:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return fetch_with(github_routes(), monkeypatch)[0]


def parsed_suite(payloads, suite: str):
    [payload] = [p for p in payloads if json.loads(p.body)["suite"] == suite]
    return payload, mlperf.parse(payload, DAY)


def test_fetch_makes_one_bundle_per_system_and_benchmark(payloads):
    assert len(payloads) == 2
    inf = json.loads(parsed_suite(payloads, "inference")[0].body)
    assert (inf["submitter"], inf["system"], inf["benchmark"], inf["commit"]) == (
        "ExampleCo",
        "EX8_H100_SXM_80GBx8_TRT",
        "llama2-70b-99",
        SHA,
    )
    # results of the three scenarios + the system JSON + the declared-weights JSON; not the
    # compliance copy and not resnet50
    assert len(inf["files"]) == 5 and not any("compliance" in p or "resnet50" in p for p in inf["files"])
    raw = (
        FIXTURES / "inference_results_v5.1" / next(p for p in inf["files"] if "Offline/perf" in p)
    ).read_text()
    assert raw in inf["files"].values()  # exact text as received


def test_inference_tokens_per_second(payloads):
    payload, parsed = parsed_suite(payloads, "inference")
    assert dict(parsed.rows.schema) == BENCHMARK_RESULT
    rows = {r["scenario"]: r for r in parsed.rows.iter_rows(named=True)}
    offline, server = rows["Offline"], rows["Server"]
    # "Tokens per second: 24000.0" on 8 GPUs -> 3000 per GPU
    assert (offline["metric"], offline["value"], offline["unit"]) == ("tokens_per_s", 24000.0, "tokens/s")
    assert offline["per_gpu_value"] == pytest.approx(3000.0)
    # Server reports "Completed tokens per second: 20800.00" -> 2600 per GPU
    assert server["value"] == 20800.0 and server["per_gpu_value"] == pytest.approx(2600.0)
    assert (offline["workload_id"], server["workload_id"]) == ("llama2-70b-offline", "llama2-70b-server")
    assert offline["precision"] == "fp8" and server["precision"] is None  # only Offline declared weights
    assert (offline["suite"], offline["round"], offline["benchmark"], offline["model"]) == (
        "MLPerf Inference",
        "v5.1",
        "llama2-70b-99",
        "Llama-2-70B",
    )
    assert (offline["gpu_name"], offline["gpu_count"], offline["nodes"]) == ("NVIDIA H100-SXM-80GB", 8, 1)
    assert offline["submitter"] == "ExampleCo" and offline["software"] == "TensorRT 10.8, CUDA 12.8"
    assert offline["system"] == "EX8_H100_SXM_80GBx8_TRT" and offline["measured_at"] == DAY
    assert SHA in offline["source_ref"] and offline["source_ref"].endswith(
        "Offline/performance/run_1/mlperf_log_summary.txt"
    )
    # Interactive missed its latency bounds: INVALID is rejected, not loaded
    [reject] = parsed.rejects
    assert reject.rule == "mlperf_invalid_result" and "Interactive" in reject.detail


def test_training_olympic_mean_and_step_time(payloads):
    _, parsed = parsed_suite(payloads, "training")
    assert parsed.rejects == []
    [run] = parsed.rows.iter_rows(named=True)
    # runs of 100, 102, 101, 110, 99 min: drop 99 and 110 -> mean 101.0; x scaling 1.02 = 103.02
    assert run["value"] == pytest.approx(103.02) and (run["metric"], run["unit"]) == (
        "time_to_train_min",
        "min",
    )
    # blocks of 384 steps (12288 samples / gbs 32) at 1.2 s and 1.4 s -> median 1.3 s
    assert run["median_step_s"] == pytest.approx(1.3)
    assert (run["global_batch_size"], run["seq_len"]) == (32.0, 8192.0)
    assert (run["scenario"], run["workload_id"], run["precision"]) == (
        "training",
        "llama31-8b-pretrain",
        "fp8",
    )
    assert (run["gpu_name"], run["gpu_count"], run["nodes"]) == ("AMD Instinct MI355X", 8, 1)
    assert (run["suite"], run["round"], run["per_gpu_value"]) == ("MLPerf Training", "v5.1", None)
    assert run["measured_at"] == date(2025, 10, 2)  # day of the last run_start
    assert "olympic mean of 5 runs" in run["source_ref"]


def test_summary_reader_and_precision():
    text = (
        "Scenario : Server\nCompleted samples per second    : 71.50\nCompleted tokens per second: 20800.00\n"
        "Result is : VALID\nttft_latency (ns): 2000000000\n"
    )
    values = inference.read_summary(text)
    assert values["result is"] == "VALID" and values["ttft_latency (ns)"] == "2000000000"
    assert inference.token_rate(values) == 20800.0
    assert inference.token_rate(inference.read_summary("Tokens per second (inferred): 13096.6\n")) is None
    assert inference.precision("NVFP4 weights") == "fp4" and inference.precision("int8") is None
    assert inference.precision("fp8 and fp16") is None  # two declared: not a single precision


def test_olympic_mean_with_failed_runs():
    assert training.olympic_mean([10, 12, 11, math.inf]) == pytest.approx(11.5)  # the failure is the slowest
    assert training.olympic_mean([10, 12, math.inf, math.inf]) is None
    assert training.olympic_mean([10, 12]) is None


def test_two_failed_runs_reject_the_score(payloads):
    payload, _ = parsed_suite(payloads, "training")
    bundle = json.loads(payload.body)
    for path in [p for p in bundle["files"] if p.endswith(("result_1.txt", "result_2.txt"))]:
        bundle["files"][path] = bundle["files"][path].replace('"status": "success"', '"status": "aborted"')
    parsed = mlperf.parse(Payload("mlperf", payload.name, json.dumps(bundle).encode(), payload.url), DAY)
    assert parsed.rows.is_empty() and [r.rule for r in parsed.rejects] == ["mlperf_training_no_score"]


@pytest.mark.parametrize(
    "benchmark, scenario, expected",
    [
        ("llama2-70b-99", "Offline", "llama2-70b-offline"),
        ("llama2-70b-99.9", "Interactive", "llama2-70b-interactive"),
        ("llama3.1-8b", "Server", "llama31-8b-server"),
        ("llama3.1-405b", "Offline", "llama31-405b-offline"),
        ("mixtral-8x7b", "Server", "mixtral-8x7b-server"),
        ("deepseek-r1", "Interactive", "deepseek-r1-interactive"),
        ("gpt-oss-120b", "Offline", None),
        ("resnet50", "Offline", None),
        ("llama2_70b_lora", "training", "llama2-70b-lora"),
        ("llama31_405b", "training", "llama31-405b-pretrain"),
        ("llama31_8b", "training", "llama31-8b-pretrain"),
        ("gpt3", "training", "gpt3-175b-pretrain"),
        ("bert", "training", None),
    ],
)
def test_workload_mapping(benchmark, scenario, expected):
    assert mlperf.workload_id(benchmark, scenario) == expected


def test_unusable_bundles_raise_source_error(payloads):
    payload, _ = parsed_suite(payloads, "inference")
    with pytest.raises(SourceError, match="not JSON"):
        mlperf.parse(Payload("mlperf", payload.name, payload.body[:200], payload.url), DAY)
    bundle = json.loads(payload.body)
    system_path = next(p for p in bundle["files"] if "/systems/" in p)
    bundle["files"][system_path] = bundle["files"][system_path].replace(
        '"accelerator_model_name"', '"accelerator"'
    )
    with pytest.raises(SourceError, match="accelerator_model_name"):
        mlperf.parse(Payload("mlperf", payload.name, json.dumps(bundle).encode(), payload.url), DAY)
    with pytest.raises(SourceError, match="lacks 'files'"):
        mlperf.parse(
            Payload("mlperf", payload.name, json.dumps(bundle | {"files": {}}).encode(), payload.url), DAY
        )


def test_failed_raw_file_costs_one_bundle_only(monkeypatch):
    routes = github_routes()
    url = next(u for u in routes if "training_results" in u and u.endswith("result_3.txt"))
    routes[url] = [requests.Timeout("read timed out")]
    payloads, _ = fetch_with(routes, monkeypatch)
    assert [json.loads(p.body)["suite"] for p in payloads] == ["inference"]
    # a truncated raw file (Content-Length says more) is caught the same way
    routes = github_routes()
    url = next(u for u in routes if u.endswith("Server/performance/run_1/mlperf_log_summary.txt"))
    body = routes[url][0][1]
    routes[url] = [(200, body[:40], {"Content-Length": str(len(body))})]
    assert [json.loads(p.body)["suite"] for p in fetch_with(routes, monkeypatch)[0]] == ["training"]


def test_tree_http_500_then_success_and_total_failure(monkeypatch):
    routes = github_routes()
    tree = f"{API}/mlcommons/training_results_v5.1/git/trees/{SHA}?recursive=1"
    routes[tree].insert(0, (500, b"server error"))
    first, _ = fetch_with(routes, monkeypatch)  # the training round fails, inference survives
    assert [json.loads(p.body)["suite"] for p in first] == ["inference"]
    second, _ = fetch_with(routes, monkeypatch)
    assert len(second) == 2
    routes = github_routes()
    routes[f"{API}/mlcommons/inference_results_v5.1/commits/HEAD"] = [requests.Timeout("timed out")]
    with pytest.raises(SourceError, match="no MLPerf results fetched.*timed out"):
        fetch_with(routes, monkeypatch, repos=REPOS[:1])


def test_github_token_is_honoured(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
    _, adapter = fetch_with(github_routes(), monkeypatch, repos=REPOS[1:])
    assert adapter.requests and all(r.headers["Authorization"] == "Bearer ghp_test" for r in adapter.requests)


def test_spec():
    assert mlperf.SPEC.kind == "benchmarks" and mlperf.SPEC.key_env is None and mlperf.SPEC.live
