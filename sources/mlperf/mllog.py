"""Read one MLPerf Training result_N.txt (MLLOG lines) into a run: time to train, step time.

Lines look like `:::MLLOG {"time_ms": ..., "key": "run_start", "value": ..., "metadata": {...}}`.
Time to train is run_stop - run_start of a run whose run_stop says status "success".

The median step time comes from the training blocks (block_start .. block_stop), in the
first form the log supports (all seen in training_results_v5.0 / v5.1):

1. metadata.step on both block events (NeMo / mlperf_common, e.g. v5.1 NVIDIA
   llama2_70b_lora: step 0 -> 192): seconds / steps. Their samples_count is the block's
   size, not a running count, so it says nothing about progress.
2. a running metadata.samples_count (AMD's v5.0 / v5.1 logs: 0 -> 12288): seconds / (samples
   / global_batch_size).
3. neither (v5.0 NeMo llama31_405b: samples_count 0 at both ends): the train_step_time the
   framework logged itself in tracked_stats.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

LINE = re.compile(r":::MLLOG\s+(\{.*\})\s*$")
# Only lines naming one of these are decoded: real logs are mostly loss and eval lines.
WANTED = ("run_start", "run_stop", "block_start", "block_stop", "global_batch_size", "train_step_time",
          "max_sequence_length", "seq_len", "sequence_length")
SEQ_LEN_KEYS = ("max_sequence_length", "seq_len", "sequence_length")
MAX_MS = 1e14  # epoch milliseconds beyond year 5000 are not a timestamp


@dataclass
class Run:
    minutes: float  # math.inf when the run did not finish successfully
    start_ms: float | None = None
    global_batch_size: float | None = None
    seq_len: float | None = None
    step_seconds: list[float] = field(default_factory=list)


def _number(value, limit: float = 1e12) -> float | None:
    """A finite, non-negative number within `limit`; None for anything else (bools included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and 0 <= number <= limit else None


def events(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        if not any(key in line for key in WANTED):
            continue
        match = LINE.search(line)
        if not match:
            continue
        try:
            event = json.loads(match[1])
        except (ValueError, RecursionError):
            continue  # a cut-off line; the run_start/run_stop check decides if that matters
        if isinstance(event, dict) and isinstance(event.get("key"), str):
            event["metadata"] = event["metadata"] if isinstance(event.get("metadata"), dict) else {}
            out.append(event)
    return out


def _steps_between(start: dict, stop: dict, gbs: float | None) -> float | None:
    s0, s1 = _number(start.get("step")), _number(stop.get("step"))
    if s0 is not None and s1 is not None and s1 > s0:
        return s1 - s0
    c0, c1 = _number(start.get("samples_count")), _number(stop.get("samples_count"))
    if gbs and c0 is not None and c1 is not None and c1 > c0:
        return (c1 - c0) / gbs
    return None


def step_seconds(log: list[dict], gbs: float | None) -> list[float]:
    """Seconds per optimizer step of each training block (see the module docstring)."""
    derived, start = [], None
    for event in log:
        if event.get("key") == "block_start":
            start = event
        elif event.get("key") == "block_stop" and start is not None:
            t0, t1 = _number(start.get("time_ms"), MAX_MS), _number(event.get("time_ms"), MAX_MS)
            steps = _steps_between(start["metadata"], event["metadata"], gbs)
            if t0 is not None and t1 is not None and t1 > t0 and steps:
                derived.append((t1 - t0) / 1000 / steps)
            start = None
    if derived:
        return derived
    logged = (e.get("value") for e in log if e.get("key") == "tracked_stats")
    return [s for v in logged if isinstance(v, dict) and (s := _number(v.get("train_step_time"))) is not None and s > 0]


def read_run(text: str) -> Run:
    log = events(text)
    first: dict = {}
    for event in log:
        first.setdefault(event.get("key"), event)
    start = _number(first.get("run_start", {}).get("time_ms"), MAX_MS)
    stop = _number(first.get("run_stop", {}).get("time_ms"), MAX_MS)
    ok = first.get("run_stop", {}).get("metadata", {}).get("status") == "success"
    ok = ok and start is not None and stop is not None and stop > start
    gbs = _number(first.get("global_batch_size", {}).get("value"), 1e9) or None
    seq = next((_number(first[k].get("value"), 1e9) for k in SEQ_LEN_KEYS if k in first), None)
    return Run(
        minutes=(stop - start) / 60000 if ok else math.inf,
        start_ms=start,
        global_batch_size=gbs,
        seq_len=seq or None,
        step_seconds=step_seconds(log, gbs) if ok else [],
    )


def olympic_mean(minutes: list[float]) -> float | None:
    """Mean after dropping the fastest and the slowest run; None if it is not defined."""
    if len(minutes) < 3:
        return None
    kept = sorted(minutes)[1:-1]
    return None if any(math.isinf(m) for m in kept) else sum(kept) / len(kept)
