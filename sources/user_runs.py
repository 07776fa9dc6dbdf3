"""Measured runs reported by users (CSV or JSONL), e.g. the project's own DFlash run.

Format and examples: docs/quotes_and_runs.md. One record per measured configuration;
suite "user_run", benchmark = workload_id. File-only: `fetch` refuses. Records come from
sources.kit.records; every value is checked (finite, whole where the contract is Int64, a real
date) so one bad record is one reject.
"""

from __future__ import annotations

import re
from datetime import date

from sources.kit import records
from sources.kit.contracts import BENCHMARK_METRICS, BENCHMARK_RESULT
from sources.kit.rows import Frame, RowProblem, day, finite, memory_gb, number, shown, text, whole
from sources.kit.spec import Parsed, Payload, SourceSpec, file_only, file_ref

NAME = "user_runs"
MAX_BYTES = 2 * 1024 * 1024  # a hand-kept file: ~12,000 runs of ~170 bytes; split a bigger one
TEXT = (
    "workload_id", "system", "gpu_name", "role_split", "metric", "unit", "precision", "software", "scenario",
    "submitter", "model", "note", "source_ref",
)
FLOATS = ("value", "global_batch_size", "seq_len", "median_step_s", "gpu_memory_gb")
INTS = ("gpu_count", "nodes")
FIELDS = {*TEXT, *FLOATS, *INTS, "measured_at"}
REQUIRED = ("workload_id", "gpu_name", "gpu_count", "value")
DEFAULT_UNIT = {"tokens_per_s": "tokens/s", "time_to_train_min": "min"}
PRECISIONS = ("fp4", "fp8", "bf16", "fp16")
# The contract's scenarios, by their lower-case spelling.
SCENARIOS = {s.lower(): s for s in ("Offline", "Server", "Interactive", "training")}
# A measured run may span a cluster, so its bound is not the per-instance 1024 of prices: the
# largest training clusters of 2026 hold ~100,000 GPUs.
MAX_RUN_GPUS = 131_072

fetch = file_only(NAME, "runs")


def _numbers(run: dict) -> None:
    for key in (*FLOATS, *INTS):
        read = whole if key in INTS else number
        value = read(run.get(key), key, "run_not_a_number")
        if value is not None and value <= 0:
            raise RowProblem("run_bad_value", f"{key}={value:g} must be > 0")
        run[key] = value
    for key in ("gpu_count", "nodes"):
        if run[key] is not None and run[key] > MAX_RUN_GPUS:
            raise RowProblem("implausible_value", f"{key}={run[key]} is above {MAX_RUN_GPUS:,}")


def _clean(record: dict, observed_at: date, default_ref: str) -> dict:
    run = dict(record)
    unknown = sorted(set(run) - FIELDS)
    if unknown:
        raise RowProblem("run_unknown_field", f"has unknown field(s) {', '.join(unknown)}")
    for key in TEXT:
        run[key] = text(run.get(key), key)
    _numbers(run)
    missing = [k for k in REQUIRED if run.get(k) is None]
    if missing:
        raise RowProblem("run_missing_field", f"lacks {', '.join(missing)}")
    metric = run.get("metric") or "tokens_per_s"
    if metric not in BENCHMARK_METRICS:
        raise RowProblem("run_bad_metric", f"metric {shown(metric)} is not one of {', '.join(BENCHMARK_METRICS)}")
    precision = run.get("precision")
    if precision is not None and precision.lower() not in PRECISIONS:
        raise RowProblem("run_bad_precision", f"precision {shown(precision)} is not one of {', '.join(PRECISIONS)}")
    scenario = SCENARIOS.get((run.get("scenario") or "training").lower())
    if scenario is None:
        raise RowProblem("unknown_scenario",
                         f"scenario {shown(run['scenario'])} is not one of {', '.join(SCENARIOS.values())}")
    split = run.get("role_split")
    if split is not None:
        split = split.replace(" ", "").lower()
        # "shared": target and drafter take turns on every GPU (a role pipeline's other layout)
        parts = split.split("+")
        if split != "shared" and (not re.fullmatch(r"\d{1,4}(\+\d{1,4}){1,16}", split)
                                  or sum(map(int, parts)) != run["gpu_count"]):
            raise RowProblem("run_role_split_mismatch",
                             f"role_split {shown(run['role_split'])} does not add up to gpu_count {run['gpu_count']}")
    measured = run.get("measured_at")
    rate = metric == "tokens_per_s"
    return run | {
        "suite": "user_run",
        "round": None,
        "benchmark": run["workload_id"],
        "metric": metric,
        "role_split": split,
        "scenario": scenario,
        "nodes": run.get("nodes") or 1,
        "unit": run.get("unit") or DEFAULT_UNIT[metric],
        "precision": precision.lower() if precision else None,
        "per_gpu_value": finite(run["value"] / run["gpu_count"], "value per GPU") if rate else None,
        "gpu_memory_gb": memory_gb(run.get("gpu_memory_gb")),
        "measured_at": day(observed_at if measured in (None, "") else measured, "measured_at"),
        "source_ref": run.get("source_ref") or default_ref,
        "source": NAME,
    }


def parse(payload: Payload, observed_at: date) -> Parsed:
    rejects = records.Rejects(NAME)
    ref = file_ref(payload)
    frame = Frame(BENCHMARK_RESULT, NAME)
    for rec in records.read(NAME, payload, noun="runs", formats=("csv", "jsonl", "ndjson"), required=REQUIRED,
                            known=FIELDS):
        value = rec.value
        label = value.get("workload_id") if isinstance(value, dict) else None
        with rejects.guard(rec.number, value, records.where("run", rec.number, label, "no workload_id")):
            if rec.problem:
                raise RowProblem(*rec.problem)
            frame.add(_clean(value, observed_at, ref) | {"source_row": rec.number})
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="benchmarks",
    description="Measured runs reported by users (CSV/JSONL): throughput of gpucalc workloads",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
    max_bytes=MAX_BYTES,
)
