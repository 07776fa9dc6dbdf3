"""Parse one MLPerf bundle into BENCHMARK_RESULT rows, accounting for every benchmark folder.

Each folder of the system becomes rows or rejects, never nothing:

* mlperf_out_of_scope: a recognised benchmark that is not an LLM (resnet, bert, dlrm, ...),
  one reject per (submitter, system, benchmark);
* mlperf_unknown_benchmark: a spelling gpucalc does not recognise, which may be lost data;
* mlperf_open_division: open-division results (models may be modified);
* mlperf_bad_system / mlperf_mixed_accelerators / mlperf_file_unavailable: the system JSON
  cannot attribute the results to one accelerator, or could not be read;
* mlperf_unknown_round: the bundle's round is unknown (a local checkout that does not say
  which repository it is), so no row is loaded under a guessed round;
* the per-result rules of sources.mlperf.inference and .training.

gpu_name is the system JSON's accelerator_model_name as written; gpu_count is
accelerators_per_node x number_of_nodes; gpu_memory_gb is accelerator_memory_capacity.
"""

from __future__ import annotations

import itertools
from datetime import date

import polars as pl

from sources.kit.contracts import BENCHMARK_RESULT, conform, empty
from sources.kit.spec import Parsed, Payload, Reject
from sources.mlperf import inference, training
from sources.mlperf.benchmarks import classify
from sources.mlperf.bundle import NAME, read, reject
from sources.mlperf.system import SystemProblem, read_system

FOLDER_RULES = {
    "out_of_scope": ("mlperf_out_of_scope", "{name} is not an LLM benchmark; gpucalc does not model it"),
    "unknown": ("mlperf_unknown_benchmark", "benchmark folder '{name}' is not a spelling gpucalc knows: not loaded"),
}


def parse(payload: Payload, observed_at: date) -> Parsed:
    bundle = read(payload)
    suite = bundle["suite"]
    number = itertools.count(1).__next__
    rejects: list[Reject] = []
    llm = []
    for name, path in sorted(bundle["folders"].items()):
        bench = classify(suite, name)
        if bench.kind == "llm":
            llm.append((bench, path))
        else:
            rule, detail = FOLDER_RULES[bench.kind]
            rejects.append(reject(bundle, number(), rule, path, detail.format(name=name)))
    rows: list[dict] = []
    if llm:
        found, more = _results(bundle, llm, observed_at, number)
        rows, rejects = found, rejects + more
    if rows and not bundle["round"]:
        # Loading these under a guessed round would merge them with the wrong results.
        why = bundle["provenance"] or "the bundle does not say which MLPerf round it holds"
        rejects += [
            Reject(NAME, r["source_row"], "mlperf_unknown_round", f"{r['source_ref']}: round unknown: {why}",
                   {"source_ref": r["source_ref"], "submitter": r["submitter"], "system": r["system"]})
            for r in rows
        ]
        rows = []
    frame = conform(pl.DataFrame(rows, infer_schema_length=None), BENCHMARK_RESULT) if rows else empty(BENCHMARK_RESULT)
    return Parsed(frame, rejects)


def _results(bundle: dict, llm: list, observed_at: date, number) -> tuple[list[dict], list[Reject]]:
    """Rows and rejects of the system's LLM folders, after checking the system can carry them."""
    division = bundle["division"]
    owner = f"{division}/{bundle['submitter']}" if division else bundle["submitter"]
    try:
        system = read_system(bundle["files"], bundle["unfetched"], f"{owner}/systems/{bundle['system']}.json")
        division = division or system.division
        if (division or "").lower() == "open":
            raise SystemProblem("mlperf_open_division", "open division: the model may be modified, not comparable")
    except SystemProblem as problem:
        return [], [reject(bundle, number(), problem.rule, path, problem.detail) for _, path in llm]
    base = {
        "suite": f"MLPerf {bundle['suite'].title()}",
        "round": bundle["round"],
        "submitter": system.submitter or bundle["submitter"],
        "system": bundle["system"],
        "gpu_name": system.gpu_name,
        "gpu_count": system.gpu_count,
        "nodes": system.nodes,
        "gpu_memory_gb": system.gpu_memory_gb,
        "software": system.software,
        "precision": inference.precision(system.notes) if bundle["suite"] == "training" else None,
        "measured_at": observed_at,
        "source": NAME,
    }
    module = inference if bundle["suite"] == "inference" else training
    return module.rows(bundle, llm, base, number)
