"""MLPerf Training: read MLLOG result files (used by sources.mlperf).

Each result_N.txt is one run; lines look like (training_results_v5.1
AMD/results/MI350X_EPYC_9575F_pytorch/llama31_8b/result_0.txt):

    :::MLLOG {"namespace": "", "time_ms": 1759966714694, "event_type": "INTERVAL_START",
              "key": "run_start", "value": null, "metadata": {...}}

Time to train of a run is run_stop - run_start. The benchmark score drops the fastest
and slowest runs and averages the rest ("olympic" mean, training_rules.adoc), times the
optional scaling.json factor. A run that did not reach status "success" counts as the
slowest; if more than one failed, no score exists.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass, field

LINE = re.compile(r":::MLLOG\s+(\{.*\})\s*$")
PATH = re.compile(
    r"^(?:closed/)?(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/"
    r"result_(?P<run>\d+)\.txt$"
)
SEQ_LEN_KEYS = ("max_sequence_length", "seq_len", "sequence_length")


@dataclass
class Run:
    minutes: float  # math.inf when the run did not finish successfully
    start_ms: int | None = None
    global_batch_size: float | None = None
    seq_len: float | None = None
    step_seconds: list[float] = field(default_factory=list)


def events(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        match = LINE.search(line)
        if not match:
            continue
        try:
            event = json.loads(match[1])
        except json.JSONDecodeError:
            continue  # a cut-off line; the run_start/run_stop check decides if that matters
        if isinstance(event, dict):
            out.append(event)
    return out


def _steps(log: list[dict], gbs: float | None) -> list[float]:
    """Seconds per optimizer step from block_start/block_stop pairs and their samples_count."""
    if not gbs:
        return []
    steps, start = [], None
    for e in log:
        meta = e.get("metadata") if isinstance(e.get("metadata"), dict) else {}
        if e.get("key") == "block_start":
            start = (e.get("time_ms"), meta.get("samples_count"))
        elif e.get("key") == "block_stop" and start:
            t0, s0 = start
            t1, s1 = e.get("time_ms"), meta.get("samples_count")
            if all(isinstance(v, int | float) for v in (t0, s0, t1, s1)) and s1 > s0 and t1 > t0:
                steps.append((t1 - t0) / 1000 / ((s1 - s0) / gbs))
            start = None
    return steps


def read_run(text: str) -> Run:
    log = events(text)
    first = {}
    for e in log:
        first.setdefault(e.get("key"), e)
    start, stop = first.get("run_start"), first.get("run_stop")
    meta = (stop or {}).get("metadata")
    status = meta.get("status") if isinstance(meta, dict) else None
    ok = (
        status == "success"
        and isinstance((start or {}).get("time_ms"), int | float)
        and isinstance((stop or {}).get("time_ms"), int | float)
    )
    minutes = (stop["time_ms"] - start["time_ms"]) / 60000 if ok else math.inf
    gbs = (first.get("global_batch_size") or {}).get("value")
    gbs = float(gbs) if isinstance(gbs, int | float) else None
    seq = next((first[k].get("value") for k in SEQ_LEN_KEYS if k in first), None)
    return Run(
        minutes=minutes,
        start_ms=start.get("time_ms") if start else None,
        global_batch_size=gbs,
        seq_len=float(seq) if isinstance(seq, int | float) else None,
        step_seconds=_steps(log, gbs) if ok else [],
    )


def olympic_mean(minutes: list[float]) -> float | None:
    """Mean after dropping the fastest and the slowest run; None if it is not defined."""
    if len(minutes) < 3:
        return None
    kept = sorted(minutes)[1:-1]
    return None if any(math.isinf(m) for m in kept) else statistics.fmean(kept)
