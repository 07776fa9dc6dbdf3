"""MLPerf Inference: tokens per second from LoadGen's mlperf_log_summary.txt.

A summary is "key : value" lines (real example: inference_results_v5.1 closed/Azure/results/
ND_GB200_v6/llama3.1-405b/Server/performance/run_1/mlperf_log_summary.txt):

    Scenario : Server
    Completed tokens per second: 584.01     (Server / Interactive)
    Tokens per second: 35075.1              (Offline)
    Result is : VALID

"Tokens per second (inferred)" (older GPT-J runs) is derived, not measured, and is ignored.

One result is counted once: submitters often file the same run under both accuracy targets
(`llama2-70b-99` and `llama2-70b-99.9`) or, in v5.0, under `llama2-70b-interactive-99` as
well. Within a system, summaries of one model family and served scenario whose text is
identical are one run: it becomes one row, under the first folder in sorted order, and its
source_ref names the other folders. Different summaries are different runs and each counts.
"""

from __future__ import annotations

import hashlib
import json
import math
import re

from sources.kit.spec import Reject
from sources.mlperf.benchmarks import SERVING_SCENARIOS, Benchmark, served_scenario
from sources.mlperf.bundle import file_ref, reject
from sources.mlperf.layout import SUMMARY

TOKEN_RATE_KEYS = ("tokens per second", "completed tokens per second")
PRECISIONS = ("fp4", "fp8", "bf16", "fp16")


def read_summary(text: str) -> dict[str, str]:
    """Key/value pairs of a summary, keys lower-cased; the first occurrence wins."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        key = " ".join(key.lower().split())
        if colon and key and key not in values:
            values[key] = value.strip()
    return values


def token_rate(values: dict[str, str]) -> float | None:
    for key in TOKEN_RATE_KEYS:
        try:
            rate = float(values[key])
        except (KeyError, ValueError):
            continue
        return rate if math.isfinite(rate) and rate > 0 else None
    return None


def precision(declared: str | None) -> str | None:
    """One of fp4|fp8|bf16|fp16 if the declaration names exactly one of them."""
    if not declared:
        return None
    text = declared.lower().replace("nvfp4", "fp4").replace("bfloat16", "bf16").replace("float16", "fp16")
    found = {p for p in PRECISIONS if re.search(rf"(?<![a-z0-9]){p}(?![0-9])", text)}
    return found.pop() if len(found) == 1 else None


def _declared_weights(bundle: dict, summary: str) -> str | None:
    """weight_data_types from measurements/<system>/<benchmark>/<scenario>/*.json, if read."""
    prefix = summary.replace("/results/", "/measurements/", 1).split("/performance/")[0] + "/"
    for path in sorted(p for p in bundle["files"] if p.startswith(prefix) and p.endswith(".json")):
        try:
            declared = json.loads(bundle["files"][path]).get("weight_data_types")
        except (ValueError, AttributeError, RecursionError):
            continue
        if isinstance(declared, str):
            return declared
    return None


def _same_run_key(family: str, scenario: str, text: str) -> tuple[str, str, str]:
    normalised = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return family, scenario, hashlib.sha256(normalised.encode()).hexdigest()


def rows(bundle: dict, folders: list[tuple[Benchmark, str]], base: dict, number) -> tuple[list[dict], list[Reject]]:
    """Rows and rejects of a system's LLM folders; `number()` hands out source_row numbers."""
    out: list[dict] = []
    rejects: list[Reject] = []
    first: dict[tuple, tuple[dict | None, list[str]]] = {}  # same run -> (row or None, other folders)
    for bench, folder in folders:
        summaries = sorted(
            p for p in [*bundle["files"], *bundle["unfetched"]]
            if p.startswith(folder + "/") and SUMMARY.match(p[len(folder) + 1:])
        )
        if not summaries:
            detail = "no <scenario>/performance/run_1/mlperf_log_summary.txt: nothing to load"
            rejects.append(reject(bundle, number(), "mlperf_no_result_files", folder, detail))
        for path in summaries:
            scenario = served_scenario(bench, SUMMARY.match(path[len(folder) + 1:])["scenario"])
            if path in bundle["unfetched"]:
                detail = f"could not be read: {bundle['unfetched'][path]}"
                rejects.append(reject(bundle, number(), "mlperf_file_unavailable", path, detail))
                continue
            if scenario not in SERVING_SCENARIOS:
                detail = f"scenario {scenario} is not a serving scenario gpucalc models"
                rejects.append(reject(bundle, number(), "mlperf_out_of_scope", path, detail))
                continue
            key = _same_run_key(bench.family, scenario, bundle["files"][path])
            if key in first:
                first[key][1].append(bench.folder)
                continue
            row, problem = _row(bundle, bench, scenario, path, base)
            if row is None:
                rejects.append(reject(bundle, number(), *problem))
            else:
                row["source_row"] = number()
                out.append(row)
            first[key] = (row, [])
    for row, others in first.values():
        if row is not None and others:
            row["source_ref"] += f" (same performance log also filed under {', '.join(others)})"
    return out, rejects


def _row(bundle: dict, bench: Benchmark, scenario: str, path: str, base: dict):
    """(row, None) for a valid result, else (None, (rule, path, detail))."""
    values = read_summary(bundle["files"][path])
    verdict = values.get("result is", "").split()[:1]
    if verdict != ["VALID"]:
        return None, ("mlperf_invalid_result", path, f"result is {values.get('result is') or 'missing'}")
    rate = token_rate(values)
    if rate is None:
        return None, ("mlperf_no_token_rate", path, "no measured tokens-per-second line")
    return base | {
        "benchmark": bench.folder,
        "model": bench.model,
        "scenario": scenario,
        "workload_id": f"{bench.workload}-{scenario.lower()}" if bench.workload else None,
        "metric": "tokens_per_s",
        "value": rate,
        "unit": "tokens/s",
        "per_gpu_value": rate / base["gpu_count"],
        "precision": precision(_declared_weights(bundle, path)),
        "source_ref": file_ref(bundle, path),
    }, None
