"""Regenerate benchmark_results.csv from the shared MLPerf extracts.

    python -m sources.bundled.build_benchmarks [--shared DIR] [--check]

Reads `mlperf_h100_mi300x.csv`, `mlperf_other_accelerators_v4.0-v5.0.csv` and
`mlperf_training_runs_v4.0-v5.0.csv` from DIR (default: `shared/data/benchmarks` beside the
checkout, where the project keeps its shared data), then the project's own extract of MLPerf
Inference v5.0 in the same columns (`sources/data/mlperf_inference_v5.0.csv`), and writes every
MLPerf row in the bundled format, file order kept, followed by the user runs already in the CSV
(they have no upstream file, so they are carried over as written). `--check` writes nothing and
exits 1 when the committed CSV differs from what the shared files give. OBSERVATIONS.md
section 2 states the rules this script applies; every check below stops the build rather than
write a row the rules cannot vouch for.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from sources.bundled.catalog import load_table
from sources.gpu_identity import GpuCatalog, resolve_name
from sources.mlperf import workload_id as mlperf_workload

DATA = Path(__file__).resolve().parents[1] / "data"
TARGET = DATA / "benchmark_results.csv"
DEFAULT_SHARED = DATA.parents[2] / "shared" / "data" / "benchmarks"
RESULT_FILES = ("mlperf_h100_mi300x.csv", "mlperf_other_accelerators_v4.0-v5.0.csv")
RUNS_FILE = "mlperf_training_runs_v4.0-v5.0.csv"
# Rounds the shared extracts lack, extracted by the project in their columns (OBSERVATIONS.md 2.3)
OWN_RESULT_FILES = (DATA / "mlperf_inference_v5.0.csv",)

COLUMNS = (
    "suite", "round", "benchmark", "workload_id", "model", "scenario", "submitter", "system", "gpu_name",
    "gpu_count", "nodes", "role_split", "metric", "value", "unit", "per_gpu_value", "precision", "software",
    "global_batch_size", "seq_len", "median_step_s", "measured_at", "source", "source_ref",
)
SOURCE = "bundled_mlperf"

# Publication day of each round's results (OBSERVATIONS.md 2.1 says which were confirmed).
PUBLISHED = {
    ("MLPerf Inference", "v4.0"): "2024-03-27",
    ("MLPerf Inference", "v4.1"): "2024-08-28",
    ("MLPerf Inference", "v5.0"): "2025-04-02",
    ("MLPerf Inference", "v5.1"): "2025-09-09",
    ("MLPerf Training", "v4.0"): "2024-06-12",
    ("MLPerf Training", "v4.1"): "2024-11-13",
    ("MLPerf Training", "v5.0"): "2025-06-04",
    ("MLPerf Training", "v5.1"): "2025-11-12",
}
# Results from Inference v5.1 / Training v5.1 on are how the model is checked from outside:
# only these two accelerators' results of those rounds may be bundled.
LATE_ROUND_GPUS = frozenset({"H100-SXM", "MI300X"})
FIRST_HELD_OUT_ROUND = (5, 1)
# Accelerators whose FP4 tensor cores NVIDIA's v4.1 LLM engines used (the precision note).
FP4_GPUS = frozenset({"B200", "GB200"})
# A result's logged step time and the run logs' median of medians are the same measurement
# summarised two ways; a larger gap means the two files describe different runs.
STEP_TOLERANCE = 0.01


def round_number(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.lstrip("v").split("."))


def held_out(row: dict) -> bool:
    """Whether a result belongs to the outside check the project never reads."""
    return round_number(row["round"]) >= FIRST_HELD_OUT_ROUND and row["gpu_type"] not in LATE_ROUND_GPUS


def precision(row: dict) -> str:
    """The precision the GEMMs ran in, in the catalog's vocabulary (fp4 | fp8 | bf16 | fp16), or empty."""
    if row["precision_note"]:
        # NVIDIA's LLM entries declare fp16 + quantization (or nothing, v4.0) and run FP8, FP4 on
        # Blackwell; the note is the only place the file says so
        if "NVIDIA" not in row["precision_note"]:
            raise ValueError(f"row {row['row_id']}: precision note of an unknown kind: {row['precision_note']!r}")
        return "fp4" if row["gpu_type"] in FP4_GPUS else "fp8"
    declared = row["precision_declared"].lower()
    if declared not in ("", "fp4", "fp8", "bf16", "fp16"):
        raise ValueError(f"row {row['row_id']}: precision {declared!r} is not in the catalog's vocabulary")
    return declared


def gpu_name(row: dict, catalog: GpuCatalog) -> str:
    """The file's gpu_type, unless the submitter's own spelling names another catalog part."""
    typed = resolve_name(row["gpu_type"], catalog).gpu
    spelled = resolve_name(row["accelerator_name"], catalog)
    if spelled.gpu is None:
        raise ValueError(f"row {row['row_id']}: {spelled.unresolved}")
    # 'A100' is ambiguous and 'GH200' is the 96 GB part: the spelling carries the memory
    return row["gpu_type"] if typed == spelled.gpu else row["accelerator_name"]


def latency_limits(text: str) -> tuple[float, float] | None:
    """(TTFT ms, TPOT ms) of 'TTFT<=2s p99, TPOT<=200ms p99'; None when the scenario has none."""
    if not text:
        return None
    found = dict(re.findall(r"(TTFT|TPOT)<=([\d.]+(?:ms|s))", text))
    as_ms = {k: float(v[:-2]) if v.endswith("ms") else float(v[:-1]) * 1000 for k, v in found.items()}
    return as_ms["TTFT"], as_ms["TPOT"]


def run_steps(shared: Path) -> dict[tuple[str, str], list[float]]:
    """Median step time of each run log with step timing, by (repository, result folder)."""
    steps: dict[tuple[str, str], list[float]] = defaultdict(list)
    with (shared / RUNS_FILE).open(newline="", encoding="utf-8") as file:
        for run in csv.DictReader(file):
            folder = run["source_path"].rsplit("/", 1)[0] + "/"
            if run["median_step_time_s"]:
                steps[(run["source_repo"], folder)].append(float(run["median_step_time_s"]))
    return steps


def training_rate(row: dict, steps: dict) -> tuple[str, str]:
    """(per_gpu_value, median_step_s): the result's own cells, else the run logs' median of medians."""
    logged = steps.get((row["source_repo"], row["source_path"]), [])
    median = statistics.median(logged) if logged else None
    if row["median_step_s"]:
        if median is not None and abs(median / float(row["median_step_s"]) - 1) > STEP_TOLERANCE:
            raise ValueError(f"row {row['row_id']}: step {row['median_step_s']} s, run logs {median:.4f} s")
        return row["per_gpu_value"], row["median_step_s"]
    if median is None or not (row["global_batch_size"] and row["seq_len"]):
        return "", ""
    rate = float(row["global_batch_size"]) * float(row["seq_len"]) / median / int(row["gpu_count"])
    return f"{rate:.1f}", f"{median:.4f}"


def convert(row: dict, catalog: GpuCatalog, workloads: dict[str, dict], steps: dict) -> dict[str, str]:
    if held_out(row):
        raise ValueError(f"row {row['row_id']}: {row['suite']} {row['round']} on {row['gpu_type']} is held out")
    training = row["task"] == "training"
    scenario = "training" if training else row["scenario"]
    workload = mlperf_workload(row["benchmark"], scenario)
    if workload not in workloads:
        raise ValueError(f"row {row['row_id']}: no workload for {row['benchmark']} {scenario}")
    limits = latency_limits(row["latency_constraint"])
    spec = workloads[workload]
    if not training and limits != ((spec["ttft_ms"], spec["tpot_ms"]) if spec["ttft_ms"] else None):
        raise ValueError(f"row {row['row_id']}: {row['latency_constraint']!r} are not {workload}'s limits")
    per_gpu, step = training_rate(row, steps) if training else (row["per_gpu_value"], "")
    return {
        "suite": row["suite"],
        "round": row["round"],
        "benchmark": row["benchmark"],
        "workload_id": workload,
        "model": row["model"],
        "scenario": scenario,
        "submitter": row["submitter"],
        "system": row["system"],
        "gpu_name": gpu_name(row, catalog),
        "gpu_count": row["gpu_count"],
        "nodes": row["nodes"],
        "role_split": "",
        "metric": "time_to_train_min" if training else "tokens_per_s",
        "value": row["result_value"],
        "unit": "min" if training else "tokens/s",
        "per_gpu_value": per_gpu,
        "precision": "" if training else precision(row),
        "software": row["software"],
        "global_batch_size": row["global_batch_size"] if training else "",
        "seq_len": row["seq_len"] if training else "",
        "median_step_s": step,
        "measured_at": PUBLISHED[(row["suite"], row["round"])],
        "source": SOURCE,
        "source_ref": f"{row['source_repo']}@{row['source_commit']}:{row['source_path']}",
    }


def build(shared: Path, current: str) -> str:
    """The CSV text the shared files give, with `current`'s user runs carried over at the end."""
    catalog = GpuCatalog.from_frames(load_table("gpu"), load_table("gpu_alias"), load_table("gpu_instance"))
    workloads = {w["workload_id"]: w for w in load_table("workload").iter_rows(named=True)}
    steps = run_steps(shared)
    rows = []
    for path in [shared / name for name in RESULT_FILES] + list(OWN_RESULT_FILES):
        with path.open(newline="", encoding="utf-8") as file:
            rows += [convert(row, catalog, workloads, steps) for row in csv.DictReader(file)]
    rows += [r for r in csv.DictReader(io.StringIO(current)) if r["source"] != SOURCE]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="folder of the shared MLPerf CSVs")
    parser.add_argument("--check", action="store_true", help="compare with the committed CSV, write nothing")
    args = parser.parse_args(argv)
    current = TARGET.read_text(encoding="utf-8")
    text = build(args.shared, current)
    if args.check:
        if text != current:
            print(f"{TARGET.name} differs from what {args.shared} gives", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10)) - 1} rows to {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
