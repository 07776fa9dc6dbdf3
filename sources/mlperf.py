"""MLPerf Inference and Training results from the MLCommons results repositories.

fetch: one bundle payload per (submitter, system, benchmark) with the raw files a parse
needs (see sources/_mlperf_fetch.py); only closed-division LLM benchmarks.
parse: BENCHMARK_RESULT rows like shared/data/benchmarks/mlperf_h100_mi300x.csv.

* Inference: one row per scenario, metric tokens_per_s from "Tokens per second"
  (Offline) or "Completed tokens per second" (Server/Interactive); INVALID results are
  rejected (rule mlperf_invalid_result). measured_at = the observed_at passed in.
* Training: one row per system and benchmark, metric time_to_train_min = olympic mean
  of the runs (drop fastest and slowest) x scaling.json; median_step_s from the logged
  block timings; measured_at = day of the last run_start (UTC).

gpu_name is the system JSON's accelerator_model_name as written; gpu_count is
accelerators_per_node x number_of_nodes.
"""

from __future__ import annotations

import json
import logging
import re
import statistics
from datetime import UTC, date, datetime

import polars as pl
import requests

from sources import _mlperf_inference as inference
from sources import _mlperf_training as training
from sources._mlperf_fetch import FORMAT, fetch_repo
from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec
from sources.contracts import BENCHMARK_RESULT, conform

NAME = "mlperf"
REPOS = (
    ("inference", "mlcommons/inference_results_v5.0"),
    ("inference", "mlcommons/inference_results_v5.1"),
    ("training", "mlcommons/training_results_v5.0"),
    ("training", "mlcommons/training_results_v5.1"),
)
MAX_FILES_PER_REPO = 300
# Inference benchmark (accuracy suffix removed) -> (model, gpucalc workload prefix or None).
INFERENCE = {
    "llama2-70b": ("Llama-2-70B", "llama2-70b"),
    "llama3.1-8b": ("Llama-3.1-8B", "llama31-8b"),
    "llama3.1-405b": ("Llama-3.1-405B", "llama31-405b"),
    "mixtral-8x7b": ("Mixtral-8x7B", "mixtral-8x7b"),
    "deepseek-r1": ("DeepSeek-R1", "deepseek-r1"),
    "gpt-oss-120b": ("gpt-oss-120b", None),
}
INFERENCE_DIRS = {f"{b}{s}" for b in INFERENCE for s in ("", "-99", "-99.9")}
TRAINING = {
    "llama2_70b_lora": ("Llama-2-70B (LoRA fine-tune)", "llama2-70b-lora"),
    "llama31_405b": ("Llama-3.1-405B", "llama31-405b-pretrain"),
    "llama31_8b": ("Llama-3.1-8B", "llama31-8b-pretrain"),
    "gpt3": ("GPT-3 175B", "gpt3-175b-pretrain"),
}
log = logging.getLogger(__name__)


def workload_id(benchmark: str, scenario: str) -> str | None:
    if scenario == "training":
        return (TRAINING.get(benchmark) or (None, None))[1]
    prefix = (INFERENCE.get(re.sub(r"-99(\.9)?$", "", benchmark)) or (None, None))[1]
    return f"{prefix}-{scenario.lower()}" if prefix else None


def fetch(session: requests.Session, observed_at: date) -> list[Payload]:
    payloads, errors = [], []
    for suite, repo in REPOS:
        benchmarks = INFERENCE_DIRS if suite == "inference" else set(TRAINING)
        try:
            payloads += fetch_repo(session, NAME, suite, repo, benchmarks, MAX_FILES_PER_REPO)
        except SourceError as exc:  # one unreachable round must not cost the others
            log.warning("%s", exc)
            errors.append(exc.message)
    if not payloads:
        raise SourceError(NAME, "no MLPerf results fetched: " + "; ".join(errors or ["nothing matched"]))
    return payloads


def _bundle(payload: Payload) -> dict:
    try:
        bundle = json.loads(payload.body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(NAME, f"{payload.url}: bundle is not JSON ({exc})") from exc
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise SourceError(NAME, f"{payload.url}: not a {FORMAT} bundle")
    for key in ("suite", "repo", "commit", "submitter", "system", "benchmark", "files"):
        if not bundle.get(key):
            raise SourceError(NAME, f"{payload.url}: bundle lacks '{key}'")
    if bundle["suite"] not in ("inference", "training") or not isinstance(bundle["files"], dict):
        raise SourceError(NAME, f"{payload.url}: bad suite or files in bundle")
    return bundle


def _count(value, what: str, url: str, default: int | None = None) -> int:
    if value in (None, "") and default is not None:
        return default
    try:
        number = float(str(value).strip())  # system JSONs write 8, "8" or "8.0"
        if number != int(number):
            raise ValueError
        number = int(number)
    except (ValueError, OverflowError):
        raise SourceError(NAME, f"{url}: system {what}={value!r} is not a whole number") from None
    if number < 1:
        raise SourceError(NAME, f"{url}: system {what}={value!r} is not positive")
    return number


def _system(bundle: dict, url: str) -> dict:
    path = next((p for p in bundle["files"] if p.endswith(f"/systems/{bundle['system']}.json")), None)
    if path is None:
        raise SourceError(NAME, f"{url}: bundle has no systems/{bundle['system']}.json")
    try:
        system = json.loads(bundle["files"][path])
    except json.JSONDecodeError as exc:
        raise SourceError(NAME, f"{url}: {path} is not JSON ({exc})") from exc
    if not isinstance(system, dict) or not str(system.get("accelerator_model_name") or "").strip():
        raise SourceError(NAME, f"{url}: {path} lacks accelerator_model_name")
    per_node = _count(system.get("accelerators_per_node"), "accelerators_per_node", url)
    nodes = _count(system.get("number_of_nodes"), "number_of_nodes", url, default=1)
    return {
        "submitter": system.get("submitter") or bundle["submitter"],
        "system": bundle["system"],
        "gpu_name": system["accelerator_model_name"].strip(),
        "gpu_count": per_node * nodes,
        "nodes": nodes,
        "software": system.get("framework") or None,
        "sw_notes": f"{system.get('sw_notes') or ''} {system.get('framework') or ''}",
    }


def _blob(bundle: dict, path: str) -> str:
    return f"https://github.com/{bundle['repo']}/blob/{bundle['commit']}/{path}"


def _declared_weights(bundle: dict, summary_path: str) -> str | None:
    """weight_data_types from measurements/<system>/<benchmark>/<scenario>/*.json, if fetched."""
    # closed/S/results/SYS/BENCH/SCEN/performance/... -> closed/S/measurements/SYS/BENCH/SCEN/
    prefix = summary_path.replace("/results/", "/measurements/", 1).split("/performance/")[0] + "/"
    for path, text in bundle["files"].items():
        if path.startswith(prefix) and path.endswith(".json"):
            try:
                declared = json.loads(text).get("weight_data_types")
            except (json.JSONDecodeError, AttributeError):
                continue
            if isinstance(declared, str):
                return declared
    return None


def _inference(bundle: dict, base: dict) -> tuple[list[dict], list[Reject]]:
    rows, rejects = [], []
    summaries = sorted(p for p in bundle["files"] if inference.PATH.match(p))
    for i, path in enumerate(summaries, start=1):
        scenario = inference.PATH.match(path)["scenario"]
        values = inference.read_summary(bundle["files"][path])
        result = values.get("result is", "").split()[0:1]
        if result != ["VALID"]:
            rejects.append(
                Reject(
                    NAME,
                    i,
                    "mlperf_invalid_result",
                    f"{path}: result is {values.get('result is') or 'missing'}",
                    {"path": path},
                )
            )
            continue
        rate = inference.token_rate(values)
        if rate is None or rate <= 0:
            rejects.append(
                Reject(NAME, i, "mlperf_no_token_rate", f"{path}: no tokens-per-second line", {"path": path})
            )
            continue
        rows.append(
            base
            | {
                "scenario": scenario,
                "workload_id": workload_id(bundle["benchmark"], scenario),
                "metric": "tokens_per_s",
                "value": rate,
                "unit": "tokens/s",
                "per_gpu_value": rate / base["gpu_count"],
                "precision": inference.precision(_declared_weights(bundle, path)),
                "source_ref": _blob(bundle, path),
                "source_row": i,
            }
        )
    return rows, rejects


def _scaling(text: str, url: str) -> float:
    """scaling.json multiplies the score (e.g. {"scaling_factor": 1.0347}); unreadable = unusable."""
    try:
        factor = json.loads(text).get("scaling_factor", 1.0)
        if isinstance(factor, bool) or not isinstance(factor, int | float) or factor <= 0:
            raise ValueError(factor)
    except (json.JSONDecodeError, AttributeError, ValueError) as exc:
        raise SourceError(NAME, f"{url}: unreadable scaling.json ({exc})") from exc
    return float(factor)


def _training(bundle: dict, base: dict, url: str) -> tuple[list[dict], list[Reject]]:
    results = sorted(
        (p for p in bundle["files"] if training.PATH.match(p)),
        key=lambda p: int(training.PATH.match(p)["run"]),
    )
    runs = [training.read_run(bundle["files"][p]) for p in results]
    score = training.olympic_mean([r.minutes for r in runs])
    if score is None:
        failed = sum(r.minutes == float("inf") for r in runs)
        return [], [
            Reject(
                NAME,
                1,
                "mlperf_training_no_score",
                f"{url}: {len(runs)} runs, {failed} not successful: no olympic mean",
                {},
            )
        ]
    scaling_path = next((p for p in bundle["files"] if p.endswith("/scaling.json")), None)
    factor = _scaling(bundle["files"][scaling_path], url) if scaling_path else 1.0
    steps = [s for r in runs for s in r.step_seconds]
    last = max((r.start_ms for r in runs if r.start_ms), default=None)
    note = f"olympic mean of {len(runs)} runs" + (f" x scaling {factor:.4g}" if scaling_path else "")
    return [
        base
        | {
            "scenario": "training",
            "workload_id": workload_id(bundle["benchmark"], "training"),
            "metric": "time_to_train_min",
            "value": score * factor,
            "unit": "min",
            "precision": inference.precision(base["sw_notes"]),
            "global_batch_size": next((r.global_batch_size for r in runs if r.global_batch_size), None),
            "seq_len": next((r.seq_len for r in runs if r.seq_len), None),
            "median_step_s": statistics.median(steps) if steps else None,
            "measured_at": datetime.fromtimestamp(last / 1000, UTC).date() if last else base["measured_at"],
            "source_ref": f"{url} ({note})",
            "source_row": 1,
        }
    ], []


def parse(payload: Payload, observed_at: date) -> Parsed:
    bundle = _bundle(payload)
    suite = bundle["suite"]
    version = re.search(r"_v(\d+(?:\.\d+)*)$", bundle["repo"])
    models = INFERENCE if suite == "inference" else TRAINING
    model = (models.get(re.sub(r"-99(\.9)?$", "", bundle["benchmark"])) or (None,))[0]
    base = _system(bundle, payload.url) | {
        "suite": f"MLPerf {suite.title()}",
        "round": f"v{version[1]}" if version else None,
        "benchmark": bundle["benchmark"],
        "model": model,
        "measured_at": observed_at,
        "source": NAME,
    }
    if suite == "inference":
        rows, rejects = _inference(bundle, base)
    else:
        rows, rejects = _training(bundle, base, payload.url)
    if not rows and not rejects:
        raise SourceError(NAME, f"{payload.url}: bundle holds no result files")
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return Parsed(conform(frame, BENCHMARK_RESULT), rejects)


SPEC = SourceSpec(
    name=NAME,
    kind="benchmarks",
    description="MLPerf Inference (LLM tokens/s) and Training (time to train) closed-division "
    "results from the MLCommons results repositories",
    key_env=None,
    fetch=fetch,
    parse=parse,
)
