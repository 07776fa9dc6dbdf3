"""GPU identity for rows on their way into the warehouse, with the catalog as it is stored.

The resolution rules live in `sources.gpu_identity`; this reads the catalog tables the
resolver needs from the warehouse, so loads, `predict` and `whatif` all resolve names
against the same catalog the estimates use.
"""

from __future__ import annotations

import duckdb
import polars as pl

from sources.gpu_identity import GpuCatalog, resolve_gpus


def catalog(con: duckdb.DuckDBPyConnection) -> GpuCatalog:
    return GpuCatalog.from_frames(
        con.execute("select * from gpu").pl(),
        con.execute("select * from gpu_alias").pl(),
        con.execute("select * from gpu_instance").pl(),
    )


def resolve_rows(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` plus `gpu` (canonical id or null), how it resolved, and why not when it did not.

    A provider's documented GPU count for an instance replaces the row's (`gpus_per_instance`),
    and a source counting dual-GPU boards has its GPU count turned into GPUs (`gpu_count`).
    """
    resolved = resolve_gpus(frame, catalog(con))
    fixes = []
    if "gpus_per_instance" in resolved.columns:
        fixes.append(pl.coalesce("gpus_per_instance_override", "gpus_per_instance").alias("gpus_per_instance"))
    if "gpu_count" in resolved.columns:
        per_card = pl.col("gpus_per_accelerator").fill_null(1)
        fixes.append((pl.col("gpu_count") * per_card).alias("gpu_count"))
        if "per_gpu_value" in resolved.columns:
            fixes.append((pl.col("per_gpu_value") / per_card).alias("per_gpu_value"))
    return resolved.with_columns(fixes) if fixes else resolved
