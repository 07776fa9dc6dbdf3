"""MLPerf Inference and Training results from the MLCommons results repositories.

* fetch (sources.mlperf.live): every closed-division system of each round on GitHub, one
  bundle per (submitter, system) with the files its LLM results need;
* from_path (sources.mlperf.local): the same bundles from a local checkout, or part of one;
* parse (sources.mlperf.parser): BENCHMARK_RESULT rows like shared/data/benchmarks/
  mlperf_h100_mi300x.csv, and a reject for every folder or result it cannot load.

Inference rows: one per served scenario, tokens_per_s from the performance summary.
Training rows: one per system and benchmark, time_to_train_min = olympic mean x scaling.json,
with the median step time of the logged training blocks.
"""

from __future__ import annotations

from sources.kit.spec import SourceSpec
from sources.mlperf.benchmarks import workload_id
from sources.mlperf.bundle import NAME
from sources.mlperf.live import fetch
from sources.mlperf.local import from_path
from sources.mlperf.parser import parse

__all__ = ["NAME", "SPEC", "fetch", "from_path", "parse", "workload_id"]

SPEC = SourceSpec(
    name=NAME,
    kind="benchmarks",
    description="MLPerf Inference (LLM tokens/s) and Training (time to train) closed-division "
    "results from the MLCommons results repositories",
    key_env=None,
    fetch=fetch,
    parse=parse,
    from_path=from_path,
)
