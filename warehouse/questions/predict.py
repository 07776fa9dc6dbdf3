"""Predict benchmark results: `gpucalc predict --cases IN.csv --out OUT.csv`.

Cases come in the columns of an MLPerf results table (benchmark, scenario, task, gpu_type,
accelerator_name, gpu_count, nodes, precision_declared, ...). Each is resolved to a gpucalc
workload, a canonical GPU and a platform, the models run once for all of them in a scratch
copy of the warehouse, and every input row comes back with its prediction or the reason it
has none. No row can crash the run.
"""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import duckdb
import polars as pl

from sources.gpu_identity import GpuCatalog, resolve_name
from sources.mlperf import workload_id as mlperf_workload
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.identity import catalog as gpu_catalog
from warehouse.questions.scratch import copy_inputs
from warehouse.store import db
from warehouse.store.sql_text import sql_text

OUTPUT_COLUMNS = (
    "predicted_tokens_per_s",
    "predicted_per_gpu",
    "bottleneck",
    "confidence",
    "error_p50",
    "error_p90",
    "error_basis",
    "reason",
    "predicted_platform",
    "predicted_layout",
    "predicted_dtype",
    "predicted_time_to_train_min",
)
# Hosts for a GPU that has no platform in the catalog: one node of the case's GPUs, NICs at
# the common 400 Gbit/s per GPU, the GPU's own scale-up link (or PCIe through the host).
DEFAULT_NETWORK_GBPS = 400.0


def written_by_predict(path: Path) -> bool:
    """Whether `path` looks like a file `predict` wrote: a CSV whose header has every prediction column."""
    try:
        with path.open(encoding="utf-8", newline="") as file:
            header = next(csv.reader([file.readline(64 * 1024)]), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return set(OUTPUT_COLUMNS) <= set(header)


def _text(row: dict, name: str) -> str | None:
    value = row.get(name)
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _number(row: dict, name: str) -> float | None:
    try:
        return float(row[name]) if _text(row, name) is not None else None
    except (TypeError, ValueError):
        return None


def _int(row: dict, name: str, default: int | None = None) -> int | None:
    try:
        return int(float(row[name])) if _text(row, name) is not None else default
    except (TypeError, ValueError):
        return None


def _gpu(row: dict, catalog: GpuCatalog) -> tuple[str | None, int, str]:
    """The case's accelerator through the one resolver every load uses: (gpu_id, GPUs per card, why not)."""
    # the submitter's own spelling first: it carries the memory and the card ('GH200 ... 144GB',
    # 'B60 Dual') where a results table's short gpu_type ('GH200') names another variant
    names = [n for n in (_text(row, c) for c in ("accelerator_name", "gpu_type", "gpu", "gpu_name")) if n]
    memory = _number(row, "accelerator_memory_gb") or _number(row, "gpu_memory_gb")
    first = None
    for name in names:
        found = resolve_name(name, catalog, memory_gb=memory)
        if found.gpu:
            return found.gpu, found.gpus_per_accelerator, ""
        first = first or found
    return None, 1, first.unresolved if first else "no GPU name in the row"


def resolve_cases(cases: pl.DataFrame, catalog: GpuCatalog, workloads: set[str]) -> pl.DataFrame:
    """One row per input row: case_index, workload_id, gpu_id, gpu_count, nodes, precision, reason."""
    resolved = []
    for index, row in enumerate(cases.iter_rows(named=True)):
        gpu, per_card, unresolved = _gpu(row, catalog)
        training = (_text(row, "task") or "").lower() == "training" or "train" in (_text(row, "scenario") or "")
        scenario = "training" if training else (_text(row, "scenario") or "")
        workload = mlperf_workload(_text(row, "benchmark") or "", scenario) if _text(row, "benchmark") else None
        workload = workload or _text(row, "workload_id")
        gpu_count = _int(row, "gpu_count")
        gpu_count = gpu_count * per_card if gpu_count else gpu_count
        reason = None
        if gpu is None:
            reason = f"unknown GPU: {unresolved}"
        elif workload is None or workload not in workloads:
            reason = f"no gpucalc workload for benchmark {_text(row, 'benchmark')!r} scenario {scenario!r}"
        elif gpu_count is None or gpu_count < 1:
            reason = f"gpu_count {row.get('gpu_count')!r} is not a positive number"
        resolved.append(
            dict(
                case_index=index,
                workload_id=workload,
                gpu_id=gpu,
                gpu_count=gpu_count,
                nodes=_int(row, "nodes", 1) or 1,
                precision=_text(row, "precision_declared") or _text(row, "precision"),
                role_split=_text(row, "role_split"),
                global_batch_size=_number(row, "global_batch_size"),
                reason=reason,
            )
        )
    schema = {
        "case_index": pl.Int64,
        "workload_id": pl.String,
        "gpu_id": pl.String,
        "gpu_count": pl.Int64,
        "nodes": pl.Int64,
        "precision": pl.String,
        "role_split": pl.String,
        "global_batch_size": pl.Float64,
        "reason": pl.String,
    }
    return pl.DataFrame(resolved, schema=schema)


def _add_missing_platforms(con: duckdb.DuckDBPyConnection, cases: pl.DataFrame) -> None:
    """A GPU with no platform gets a plain one-node host so it can still be modelled."""
    con.register("wanted", cases.filter(pl.col("reason").is_null()).to_arrow())
    con.execute(sql_text("warehouse.questions", "predict_host_platform.sql"), [DEFAULT_NETWORK_GBPS])
    con.unregister("wanted")


def predict(
    con: duckdb.DuckDBPyConnection, cases: pl.DataFrame, run_date: date, holdout: bool = False
) -> pl.DataFrame:
    """Return `cases` with the prediction columns added (same rows, same order).

    holdout: predict each case as an accelerator nobody has measured would be: its GPU's
    results calibrate nothing, while the backtest, and so the levels calibration trusts and
    the error bands, stay those of the whole warehouse; the prediction is the backtest's own
    for that point (one recompute per GPU).
    """
    workloads = {r[0] for r in con.execute("select workload_id from workload").fetchall()}
    resolved = resolve_cases(cases, gpu_catalog(con), workloads)
    usable = resolved.filter(pl.col("reason").is_null())
    _add_missing_platforms(con, resolved)
    if holdout:
        parts = [
            _predict_cases(_holding_out(con, gpu), usable.filter(pl.col("gpu_id") == gpu), run_date)
            for gpu in sorted(usable["gpu_id"].unique().to_list())
        ]
        predicted = pl.concat(parts, how="diagonal_relaxed") if parts else _predict_cases(con, usable, run_date)
    else:
        predicted = _predict_cases(con, usable, run_date)
    merged = resolved.select("case_index", pl.col("reason").alias("resolve_reason")).join(
        predicted, on="case_index", how="left"
    )
    out = merged.select(
        pl.col("predicted_tokens_per_s"),
        pl.col("predicted_per_gpu"),
        pl.col("bottleneck"),
        pl.col("confidence"),
        pl.col("error_p50"),
        pl.col("error_p90"),
        pl.col("error_basis"),
        pl.coalesce("resolve_reason", "reason").alias("reason"),
        pl.col("platform_id").alias("predicted_platform"),
        pl.col("layout").alias("predicted_layout"),
        pl.col("run_dtype").alias("predicted_dtype"),
        pl.col("predicted_time_to_train_min"),
    )
    return pl.concat([cases.drop([c for c in OUTPUT_COLUMNS if c in cases.columns]), out], how="horizontal")


def _holding_out(con: duckdb.DuckDBPyConnection, gpu_id: str) -> duckdb.DuckDBPyConnection:
    """An in-memory copy of the warehouse's inputs in which `gpu_id`'s results calibrate nothing."""
    copy = db.connect(":memory:")
    copy_inputs(con, copy)
    copy.execute("insert into holdout_gpu values (?)", [gpu_id])
    return copy


def _predict_cases(con: duckdb.DuckDBPyConnection, cases: pl.DataFrame, run_date: date) -> pl.DataFrame:
    con.register("requests", cases.to_arrow())
    con.execute(
        """insert into model_request by name
           select case_index, workload_id, gpu_id, gpu_count, nodes, precision, role_split, global_batch_size
           from requests"""
    )
    con.unregister("requests")
    rebuild_estimates(con, "predict", run_date)
    return con.execute(sql_text("warehouse.questions", "predict.sql")).pl()
