"""The frames every source hands to the warehouse: column names, types and allowed values.

Sources return Polars frames with exactly these columns (extra columns are dropped by
`conform`). GPU names stay as the source spells them (`gpu_name`); the warehouse resolves
them through `gpu_alias`, so an unknown spelling becomes a rejected row, never a guess.
"""

from __future__ import annotations

import polars as pl

PRICING_MODELS = ("on_demand", "spot", "reserved_1y", "reserved_3y", "owned")
# the bases a market quotes: owning is priced by a cost model, not by a quote
MARKET_PRICING = tuple(b for b in PRICING_MODELS if b != "owned")

# Per GPU-hour above this is treated as a unit or parsing error, not a price
# (the dearest on-demand list prices in 2026 are ~15 USD per GPU-hour).
MAX_USD_PER_GPU_HOUR = 100.0

PRICE_QUOTE: dict[str, pl.DataType] = {
    "provider": pl.String,  # who rents it: aws, gcp, azure, lambda, runpod, vast, ...
    "region": pl.String,  # provider's region id; "global" where one price holds everywhere
    "zone": pl.String,  # availability zone / data centre, null when not given
    "instance_type": pl.String,  # the provider's SKU for the whole instance
    "gpu_name": pl.String,  # accelerator as the source spells it (resolved via gpu_alias)
    "gpus_per_instance": pl.Float64,  # may be fractional (GPU slices)
    "usd_per_instance_hour": pl.Float64,  # what one instance costs per hour
    "pricing": pl.String,  # one of PRICING_MODELS
    "currency": pl.String,  # always recorded; only USD is accepted
    "observed_at": pl.Date,  # the day the price was true (UTC)
    "source": pl.String,  # the source module that produced the row
    "source_ref": pl.String,  # URL or document (+ hash/commit) the row came from
    "source_row": pl.Int64,  # 1-based position in the payload, for error messages
    # What the payload says about the GPU besides its name, for the identity resolver
    # (sources/gpu_identity/): memory tells an A100 40 GB from an 80 GB card.
    "gpu_memory_gb": pl.Float64,  # per GPU, GB, as the payload states it; null if it does not
    # What kind of figure the price is: "list" (the offer's published price; null means the
    # same), "median" / "lowest" (statistics over marketplace asks), "auction_floor" (the
    # minimum bid for interruptible capacity). Only list prices stand for a pricing basis.
    "price_statistic": pl.String,
    # The cloud that runs the hardware when the row comes through a marketplace or
    # aggregator (Shadeform's "crusoe_..." instances); null when provider runs it itself.
    "underlying_provider": pl.String,
}

PRICE_STATISTICS = ("list", "median", "lowest", "auction_floor")

BENCHMARK_RESULT: dict[str, pl.DataType] = {
    "suite": pl.String,  # "MLPerf Inference", "MLPerf Training", "user_run"
    "round": pl.String,  # e.g. "v5.1"; null for user runs
    "benchmark": pl.String,  # suite's benchmark id, e.g. "llama2-70b-99"
    "workload_id": pl.String,  # gpucalc workload it measures (null if none matches)
    "model": pl.String,
    "scenario": pl.String,  # Offline | Server | Interactive | training
    "submitter": pl.String,
    "system": pl.String,
    "gpu_name": pl.String,  # as the source spells it (resolved via gpu_alias)
    "gpu_count": pl.Int64,  # accelerators used in total
    "nodes": pl.Int64,
    "role_split": pl.String,  # "3+1" (producer+consumer GPUs) for role pipelines
    "metric": pl.String,  # tokens_per_s | time_to_train_min
    "value": pl.Float64,  # in `unit`
    "unit": pl.String,
    "per_gpu_value": pl.Float64,  # value / gpu_count where it is a rate
    "precision": pl.String,  # fp4 | fp8 | bf16 | fp16 as declared or inferred
    "software": pl.String,
    "global_batch_size": pl.Float64,  # training: sequences per optimizer step
    "seq_len": pl.Float64,  # training: tokens per sequence
    "median_step_s": pl.Float64,  # training: logged median step time
    "gpu_memory_gb": pl.Float64,  # per GPU, GB, as the result states it (identity resolver)
    "measured_at": pl.Date,
    "source": pl.String,
    "source_ref": pl.String,
    "source_row": pl.Int64,
}

BENCHMARK_METRICS = ("tokens_per_s", "time_to_train_min")

# Columns that must be present and non-null for a row to be usable.
PRICE_REQUIRED = (
    "provider", "region", "instance_type", "gpu_name", "gpus_per_instance",
    "usd_per_instance_hour", "pricing", "currency", "observed_at", "source", "source_ref",
)
BENCHMARK_REQUIRED = (
    "suite", "benchmark", "scenario", "gpu_name", "gpu_count", "metric", "value", "unit",
    "measured_at", "source", "source_ref",
)

# What makes two rows the same observation (a second copy is a duplicate).
PRICE_KEY = ("source", "provider", "region", "zone", "instance_type", "pricing", "observed_at")
BENCHMARK_KEY = (
    "source", "suite", "round", "benchmark", "scenario", "submitter", "system",
    "gpu_name", "gpu_count", "role_split", "metric",
)


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Return `frame` with exactly `schema`'s columns, in order, cast to their types.

    Missing optional columns are added as nulls so every source can omit what it does not
    know; a value that cannot be cast becomes null and is caught by validation.
    """
    columns = []
    for name, dtype in schema.items():
        if name in frame.columns:
            columns.append(pl.col(name).cast(dtype, strict=False))
        else:
            columns.append(pl.lit(None, dtype=dtype).alias(name))
    if frame.width == 0:
        return pl.DataFrame(schema=schema)
    return frame.select(columns)


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)
