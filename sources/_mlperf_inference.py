"""MLPerf Inference: read LoadGen's mlperf_log_summary.txt (used by sources.mlperf).

A summary is "key : value" lines (format from mlcommons/inference loadgen, e.g.
inference_results_v4.1 closed/Dell/results/XE9680_H100_SXM_80GBx8_TRT/llama2-70b-99/
Offline/performance/run_1/mlperf_log_summary.txt):

    Scenario : Offline
    Samples per second: 83.0253
    Tokens per second: 24086.7            (Offline)
    Completed tokens per second: 21588.35 (Server / Interactive)
    Result is : VALID

"Tokens per second (inferred)" (older GPT-J runs) is a derived figure, not a measured one,
and is ignored on purpose.
"""

from __future__ import annotations

import re

PATH = re.compile(
    r"^(?:closed|open)/(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/"
    r"(?P<scenario>[^/]+)/performance/run_1/mlperf_log_summary\.txt$"
)
TOKEN_RATE_KEYS = ("tokens per second", "completed tokens per second")
PRECISIONS = ("fp4", "fp8", "bf16", "fp16")


def read_summary(text: str) -> dict[str, str]:
    """Key/value pairs of a summary, keys lower-cased; the first occurrence wins."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        if ":" not in line:
            continue
        key, _, value = line.partition(":")
        key = re.sub(r"\s+", " ", key.strip().lower())
        # "ttft_latency (ns): 2000000000" -> key "ttft_latency (ns)"
        if key and key not in values:
            values[key] = value.strip()
    return values


def token_rate(values: dict[str, str]) -> float | None:
    for key in TOKEN_RATE_KEYS:
        try:
            return float(values[key])
        except (KeyError, ValueError):
            continue
    return None


def precision(declared: str | None) -> str | None:
    """One of fp4|fp8|bf16|fp16 if the declaration names exactly one of them."""
    if not declared:
        return None
    text = declared.lower().replace("nvfp4", "fp4").replace("bfloat16", "bf16").replace("float16", "fp16")
    found = {p for p in PRECISIONS if re.search(rf"(?<![a-z0-9]){p}(?![0-9])", text)}
    return found.pop() if len(found) == 1 else None
