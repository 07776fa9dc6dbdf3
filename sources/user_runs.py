"""Measured runs reported by users (CSV or JSONL), e.g. the project's own DFlash run.

Format and examples: docs/quotes_and_runs.md. One record per measured configuration;
suite "user_run", benchmark = workload_id. File-only: `fetch` refuses.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date, datetime

import polars as pl

from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec, file_only, file_ref
from sources.contracts import BENCHMARK_METRICS, BENCHMARK_RESULT, conform

NAME = "user_runs"
TEXT = (
    "workload_id",
    "system",
    "gpu_name",
    "role_split",
    "metric",
    "unit",
    "precision",
    "software",
    "scenario",
    "submitter",
    "model",
    "note",
    "source_ref",
)
FLOATS = ("value", "global_batch_size", "seq_len", "median_step_s")
INTS = ("gpu_count", "nodes")
FIELDS = {*TEXT, *FLOATS, *INTS, "measured_at"}
REQUIRED = ("workload_id", "gpu_name", "gpu_count", "value")
DEFAULT_UNIT = {"tokens_per_s": "tokens/s", "time_to_train_min": "min"}
PRECISIONS = ("fp4", "fp8", "bf16", "fp16")


fetch = file_only(NAME, "runs")


def _records(payload: Payload) -> list:
    kind = payload.name.lower().rsplit(".", 1)[-1]
    try:
        text = payload.body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(NAME, f"{payload.url}: not UTF-8 text ({exc})") from exc
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if kind in ("jsonl", "ndjson"):
        records = []
        for line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                records.append(exc)  # one broken line is that record's problem, not the file's
    elif kind == "csv":
        reader = csv.DictReader(io.StringIO("\n".join(lines)))
        header = [h.strip().lower() for h in reader.fieldnames or []]
        unknown, missing = sorted(set(header) - FIELDS), [c for c in REQUIRED if c not in header]
        if unknown or missing:
            raise SourceError(
                NAME, f"{payload.url}: CSV header problem (unknown columns {unknown}, missing {missing})"
            )
        records = [{k.strip().lower(): v for k, v in r.items() if k is not None} for r in reader]
    else:
        raise SourceError(NAME, f"{payload.url}: runs file must end in .csv or .jsonl")
    if not records:
        raise SourceError(NAME, f"{payload.url}: no runs in file")
    return records


def _number(key: str, value, whole: bool) -> float | int:
    if isinstance(value, bool):
        raise ValueError
    number = float(value)
    if whole:
        if number != int(number):
            raise ValueError
        return int(number)
    return number


def _clean(record, observed_at: date, default_ref: str) -> tuple[dict, tuple[str, str] | None]:
    if isinstance(record, Exception):
        return {}, ("run_bad_json", f"is not valid JSON ({record})")
    if not isinstance(record, dict):
        return {}, ("run_not_a_mapping", "is not an object of field: value")
    run = {
        str(k).strip().lower(): (v.strip() or None) if isinstance(v, str) else v for k, v in record.items()
    }
    unknown = sorted(set(run) - FIELDS)
    if unknown:
        return run, ("run_unknown_field", f"has unknown field(s) {', '.join(unknown)}")
    missing = [k for k in REQUIRED if run.get(k) is None]
    if missing:
        return run, ("run_missing_field", f"lacks {', '.join(missing)}")
    for key in (*FLOATS, *INTS):
        if run.get(key) is not None:
            try:
                run[key] = _number(key, run[key], key in INTS)
            except (TypeError, ValueError):
                return run, (
                    "run_not_a_number",
                    f"{key}={run[key]!r} is not a {'whole ' * (key in INTS)}number",
                )
            if run[key] <= 0:
                return run, ("run_bad_value", f"{key}={run[key]} must be > 0")
    run["metric"] = run.get("metric") or "tokens_per_s"
    if run["metric"] not in BENCHMARK_METRICS:
        return run, (
            "run_bad_metric",
            f"metric {run['metric']!r} is not one of {', '.join(BENCHMARK_METRICS)}",
        )
    if run.get("precision") is not None and str(run["precision"]).lower() not in PRECISIONS:
        return run, (
            "run_bad_precision",
            f"precision {run['precision']!r} is not one of {', '.join(PRECISIONS)}",
        )
    split = run.get("role_split")
    if split is not None:
        split = str(split).replace(" ", "")
        if not re.fullmatch(r"\d+(\+\d+)+", split) or sum(map(int, split.split("+"))) != run["gpu_count"]:
            return run, (
                "run_role_split_mismatch",
                f"role_split {run['role_split']!r} does not add up to gpu_count {run['gpu_count']}",
            )
    day = run.get("measured_at") or observed_at
    if isinstance(day, str):
        try:
            day = datetime.fromisoformat(day).date() if "T" in day else date.fromisoformat(day)
        except ValueError:
            return run, ("run_bad_date", f"measured_at {day!r} is not YYYY-MM-DD")
    rate = run["metric"] == "tokens_per_s"
    return run | {
        "suite": "user_run",
        "round": None,
        "benchmark": run["workload_id"],
        "role_split": split,
        "scenario": run.get("scenario") or "training",
        "nodes": run.get("nodes") or 1,
        "unit": run.get("unit") or DEFAULT_UNIT[run["metric"]],
        "precision": str(run["precision"]).lower() if run.get("precision") else None,
        "per_gpu_value": run["value"] / run["gpu_count"] if rate else None,
        "measured_at": day,
        "source_ref": run.get("source_ref") or default_ref,
    }, None


def parse(payload: Payload, observed_at: date) -> Parsed:
    rows, rejects = [], []
    for i, record in enumerate(_records(payload), start=1):
        run, problem = _clean(record, observed_at, file_ref(payload))
        if problem:
            where = f"run {i} ({run.get('workload_id') or 'no workload_id'})"
            rejects.append(Reject(NAME, i, problem[0], f"{where} {problem[1]}", run))
            continue
        rows.append(run | {"source": NAME, "source_row": i})
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return Parsed(conform(frame, BENCHMARK_RESULT), rejects)


SPEC = SourceSpec(
    name=NAME,
    kind="benchmarks",
    description="Measured runs reported by users (CSV/JSONL): throughput of gpucalc workloads",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
)
