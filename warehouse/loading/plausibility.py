"""Bounds that say whether a number can be true, per accelerator.

A price or a throughput can be a valid number and still be impossible: $0.0000001 per
H100-hour, a per-GPU price of 99 that was cents, a measured rate above what the hardware's
peak allows. Each bound is computed here as a column the validation suite checks
(warehouse/loading/validation.py), so the rule that rejects the row and the figure it names are one.

Prices. The floor is a quarter of what the GPU costs to own per hour at its lowest purchase
price, amortised over 5 years with no power, hosting or margin: nobody rents below that for
long (the factor leaves room for old cards bought cheap second-hand). The ceiling is the
highest purchase price recovered in 500 rented hours (three weeks): the dearest list prices,
host CPUs included, stay well below it (e.g. H100 list ~$12/GPU-hour against a $60 ceiling).
A GPU with no purchase price in the catalog is held to the global range only.

Throughput. Per GPU, rate x the fewest FLOPs one unit can cost (serving: 2 x active
parameters per output token; training: 6N, LoRA 4N; role pipelines: the producer's GFLOP per
token) cannot exceed the GPU's highest dense peak in any precision. Nor can it fall below
MIN_PEAK_FRACTION of that peak: the slowest real regime is decoding one request at a time,
bound by memory bandwidth, at about (bandwidth / peak FLOP/s) x (active / total parameters) of
peak; for a large MoE on the GPU with the most FLOP/s per byte (B300: ~15 PFLOP/s fp4 over
8 TB/s, DeepSeek-V3's 37B of 671B active) at a third of its bandwidth that is ~1e-5. The floor
is a thousandth of that, so only a unit or parsing error (1e-9 tokens/s) falls below it.
"""

from __future__ import annotations

import duckdb
import polars as pl

from sources.kit.contracts import MAX_USD_PER_GPU_HOUR
from warehouse.store.sql_text import sql_text

OWNERSHIP_HOURS = 5 * 8760
FLOOR_FRACTION = 0.25
PAYBACK_HOURS = 500.0
MIN_PEAK_FRACTION = 1e-8


def price_bounds(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> pl.DataFrame:
    """Add `price_floor_ratio` (price / floor, must be >= 1) and `price_ceiling_ratio` (<= 1)."""
    gpus = con.execute(
        f"""select gpu_id as gpu,
                   price_usd_low * {FLOOR_FRACTION} / {OWNERSHIP_HOURS} as floor_usd,
                   price_usd_high / {PAYBACK_HOURS} as ceiling_usd
            from gpu where price_usd_low > 0 and price_usd_high > 0"""
    ).pl()
    joined = frame.join(gpus, on="gpu", how="left", maintain_order="left")
    # Outside the global range the range rule already says what is wrong; one reason per row.
    price = pl.when(pl.col("usd_per_gpu_hour").is_between(0, MAX_USD_PER_GPU_HOUR, closed="right")).then(
        pl.col("usd_per_gpu_hour")
    )
    return joined.with_columns(
        (price / pl.col("floor_usd")).alias("price_floor_ratio"),
        (price / pl.col("ceiling_usd")).alias("price_ceiling_ratio"),
    )


def benchmark_bounds(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> pl.DataFrame:
    """Add `peak_ratio`: the FLOP/s per GPU the measurement implies over the GPU's best peak;
    `peak_floor_ratio`: peak_ratio over MIN_PEAK_FRACTION (must be >= 1) for a positive value; and
    `scenario_check`: whether the result was measured in its workload's scenario (a Server run
    would calibrate an Offline workload with a Server rate; a training job's is 'training')."""
    gpus = con.execute(
        "select gpu_id as gpu, greatest(coalesce(fp4_tflops, 0), coalesce(fp8_tflops, 0), "
        "coalesce(bf16_tflops, 0)) * 1e12 as peak_flops from gpu"
    ).pl()
    workloads = con.execute(sql_text("warehouse.loading", "workload_min_flops.sql")).pl()
    joined = frame.join(gpus, on="gpu", how="left", maintain_order="left").join(
        workloads, on="workload_id", how="left", maintain_order="left"
    )
    count = pl.when(pl.col("gpu_count") > 0).then(pl.col("gpu_count").cast(pl.Float64))
    rate = (
        pl.when(pl.col("metric") == "tokens_per_s")
        .then(pl.col("value"))
        .when((pl.col("metric") == "time_to_train_min") & (pl.col("value") > 0))
        .then(pl.col("job_units") / (pl.col("value") * 60.0))
    )
    peak_ratio = rate / count * pl.col("min_flops_per_unit") / pl.col("peak_flops")
    return joined.with_columns(
        peak_ratio.alias("peak_ratio"),
        # a value of zero or less is value_positive's to report: one reason per row
        pl.when(pl.col("value") > 0).then(peak_ratio / MIN_PEAK_FRACTION).alias("peak_floor_ratio"),
        # an unknown workload has no scenario to compare with: its own rule says so
        pl.when(pl.col("workload_scenario").is_null() | (pl.col("scenario") == pl.col("workload_scenario")))
        .then(pl.lit("ok")).otherwise(pl.lit("mismatch")).alias("scenario_check"),
    )


def known_workloads(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [row[0] for row in con.execute("select workload_id from workload order by 1").fetchall()]
