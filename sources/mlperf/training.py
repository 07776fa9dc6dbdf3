"""MLPerf Training: time to train per (system, benchmark) from its result_N.txt runs.

The score drops the fastest and the slowest run and averages the rest (the "olympic" mean
of training_rules.adoc), times the optional scaling.json factor ({"scaling_factor": 1.0347}).
A run that did not reach status "success" counts as the slowest; with more than one failed
run there is no score. median_step_s is the median over every run's training blocks
(sources.mlperf.mllog), measured_at the day of the last run_start (UTC).
"""

from __future__ import annotations

import json
import math
import statistics
from datetime import UTC, datetime

from sources.kit.spec import Reject
from sources.mlperf.benchmarks import Benchmark
from sources.mlperf.bundle import file_ref, reject
from sources.mlperf.layout import RUN_LOG
from sources.mlperf.mllog import olympic_mean, read_run

MAX_SCALING = 100.0


def _scaling(text: str) -> float | None:
    """The scaling factor, or None when scaling.json does not hold a positive number."""
    try:
        factor = json.loads(text).get("scaling_factor", 1.0)
    except (ValueError, AttributeError, RecursionError):
        return None
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        return None
    # real factors are close to 1 (e.g. 1.0347); anything far off is a broken file, not a score
    return float(factor) if 0 < factor < MAX_SCALING else None


def _day(ms: float | None):
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).date() if ms else None
    except (OverflowError, OSError, ValueError):
        return None


def rows(bundle: dict, folders: list[tuple[Benchmark, str]], base: dict, number) -> tuple[list[dict], list[Reject]]:
    out: list[dict] = []
    rejects: list[Reject] = []
    for bench, folder in folders:
        row, problem = _folder(bundle, bench, folder, base)
        if row is None:
            rejects.append(reject(bundle, number(), problem[0], folder, problem[1]))
        else:
            out.append(row | {"source_row": number()})
    return out, rejects


def _folder(bundle: dict, bench: Benchmark, folder: str, base: dict):
    """(row, None) for a scored benchmark, else (None, (rule, detail))."""
    inside = {p[len(folder) + 1:]: p for p in [*bundle["files"], *bundle["unfetched"]] if p.startswith(folder + "/")}
    logs = sorted((int(m["run"]), p) for name, p in inside.items() if (m := RUN_LOG.match(name)))
    if not logs:
        return None, ("mlperf_no_result_files", "no result_<n>.txt: nothing to load")
    unread = [p for p in inside.values() if p in bundle["unfetched"]]
    if unread:
        return None, ("mlperf_file_unavailable", f"{unread[0]} could not be read: {bundle['unfetched'][unread[0]]}")
    runs = [read_run(bundle["files"][p]) for _, p in logs]
    score = olympic_mean([r.minutes for r in runs])
    if score is None:
        failed = sum(math.isinf(r.minutes) for r in runs)
        return None, ("mlperf_training_no_score", f"{len(runs)} runs, {failed} not successful: no olympic mean")
    factor = 1.0
    if "scaling.json" in inside:
        factor = _scaling(bundle["files"][inside["scaling.json"]])
        if factor is None:
            return None, ("mlperf_bad_scaling", f"scaling.json holds no scaling_factor in (0, {MAX_SCALING:g})")
    steps = [s for r in runs for s in r.step_seconds]
    note = f"olympic mean of {len(runs)} runs" + (f" x scaling {factor:.4g}" if "scaling.json" in inside else "")
    return base | {
        "benchmark": bench.folder,
        "model": bench.model,
        "scenario": "training",
        "workload_id": bench.workload,
        "metric": "time_to_train_min",
        "value": score * factor,
        "unit": "min",
        "global_batch_size": next((r.global_batch_size for r in runs if r.global_batch_size), None),
        "seq_len": next((r.seq_len for r in runs if r.seq_len), None),
        "median_step_s": statistics.median(steps) if steps else None,
        "measured_at": _day(max((r.start_ms for r in runs if r.start_ms), default=None)) or base["measured_at"],
        "source_ref": f"{file_ref(bundle, folder, 'tree')} ({note})",
    }, None
