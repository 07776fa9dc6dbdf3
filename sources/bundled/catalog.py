"""The bundled reference catalog: accelerators, platforms, models, workloads, GPU aliases and instances.

These are facts with sources (datasheets, papers, MLPerf rules), kept as CSV files under
`sources/data/` so a reviewer can diff them. Every row carries `source` (URL or document).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import polars as pl

GPU: dict[str, pl.DataType] = {
    "gpu_id": pl.String,  # canonical id, e.g. H100-SXM
    "vendor": pl.String,
    "name": pl.String,
    "family": pl.String,  # calibration group, e.g. nvidia-hopper, amd-cdna3
    "form_factor": pl.String,
    "arch": pl.String,
    "launch_year": pl.Int64,
    "memory_gb": pl.Float64,  # physical, as printed
    "memory_usable_gb": pl.Float64,  # what a job can allocate (B200 HGX: 180 of 192)
    "memory_type": pl.String,
    "mem_bw_tbps": pl.Float64,
    # DENSE tensor peaks (no 2:4 sparsity); null where the hardware lacks the format
    "fp4_tflops": pl.Float64,
    "fp8_tflops": pl.Float64,
    "bf16_tflops": pl.Float64,
    "tf32_tflops": pl.Float64,
    "fp32_tflops": pl.Float64,
    "scaleup_gbps_bidir": pl.Float64,  # NVLink / Infinity Fabric per GPU, both directions
    "host_link_gbps_bidir": pl.Float64,  # PCIe to the host, both directions
    "tdp_w": pl.Float64,
    "sfu_exp_per_s_t": pl.Float64,  # softmax exponentials per second (T/s): bounds attention (null: not modelled)
    "sustained_clock_ratio": pl.Float64,  # tensor clock held under the board's power cap / the peak's clock
    "price_usd_low": pl.Float64,
    "price_usd_high": pl.Float64,
    "confidence": pl.String,  # datasheet | secondary | estimate
    "source": pl.String,
    "source_date": pl.Date,
}

PLATFORM: dict[str, pl.DataType] = {
    "platform_id": pl.String,  # e.g. hgx-b200-8, gb200-nvl72, ws-rtxpro6000-4
    "name": pl.String,
    "gpu_id": pl.String,
    "gpus_per_node": pl.Int64,  # GPUs in one rentable/buyable system
    "scaleup_domain_gpus": pl.Int64,  # GPUs that share the scale-up fabric (72 for NVL72)
    "scaleup_kind": pl.String,  # nvlink-switch | infinity-fabric | pcie-host | ...
    "scaleup_gbps_bidir": pl.Float64,  # per GPU inside the domain, both directions
    "host_link_gbps_bidir": pl.Float64,  # per GPU to the host, both directions
    "network_gbps_per_gpu": pl.Float64,  # scale-out NIC line rate per GPU, Gbit/s one way
    "node_power_kw": pl.Float64,  # whole system at full load
    "capex_usd_per_node": pl.Float64,  # whole system (chassis, switch, rack share)
    "max_nodes": pl.Int64,  # largest cluster gpucalc enumerates for it
    "source": pl.String,
}

MODEL: dict[str, pl.DataType] = {
    "model_id": pl.String,
    "name": pl.String,
    "family": pl.String,  # the model family (llama-3.1, deepseek-v3): the backtest leaves one out at a time
    "params_total_b": pl.Float64,  # billions
    "params_active_b": pl.Float64,  # per token (MoE); = total for dense
    "layers": pl.Int64,
    "attn_layers": pl.Int64,  # layers with a KV cache (hybrid models have fewer)
    "hidden": pl.Int64,
    "ffn": pl.Int64,
    "q_heads": pl.Int64,
    "kv_heads": pl.Int64,
    "head_dim": pl.Int64,
    "vocab": pl.Int64,
    "experts": pl.Int64,  # routed experts per MoE layer, 0/null for dense
    "experts_active": pl.Int64,
    "moe_layers": pl.Int64,  # layers with routed experts (DeepSeek: 58 of 61; the first 3 are dense)
    "kv_dim_per_layer": pl.Int64,  # elements cached per token per attention layer (K+V, or MLA latent)
    "state_mb_per_seq": pl.Float64,  # fixed recurrent state per sequence (GDN), MB
    # attention work where it is not 4 x q_heads x head_dim (MLA): FLOPs per query token per cached token per
    # layer in decode, and per (query, key) pair per layer in prefill (null: the GQA/MHA formula)
    "attn_decode_flops": pl.Float64,
    "attn_prefill_flops": pl.Float64,
    "kv_tp_shards": pl.Int64,  # ways tensor parallelism can split the KV cache (null: kv_heads; MLA: 1)
    "max_context": pl.Int64,  # the most tokens of prompt + output it takes (its config's max_position_embeddings)
    "source": pl.String,
}

WORKLOAD: dict[str, pl.DataType] = {
    "workload_id": pl.String,
    "name": pl.String,
    "kind": pl.String,  # pretrain | finetune_lora | finetune_full | serving | role_pipeline
    "model_id": pl.String,
    "dtype": pl.String,  # fp4 | fp8 | bf16: what the matmuls run in
    "total_tokens": pl.Float64,  # tokens the job must process (all epochs), or serve (output)
    "epochs": pl.Float64,
    "seq_len": pl.Float64,  # training sequence length
    "global_batch_seqs": pl.Float64,  # training sequences per step
    "input_len": pl.Float64,  # serving: mean prompt tokens
    "output_len": pl.Float64,  # serving: mean generated tokens
    # spread of generated lengths (coefficient of variation: 0 all equal, 1 exponential): long
    # outputs hold more KV cache for longer, so in-flight contexts are longer than input + mean/2
    "output_len_cv": pl.Float64,
    "max_output_len": pl.Float64,  # serving: the longest output the benchmark allows
    "samples": pl.Float64,  # MLPerf serving: prompts in the dataset (a finite run has a tail)
    "scenario": pl.String,  # serving: Offline | Server | Interactive
    "ttft_ms": pl.Float64,  # serving: p99 time-to-first-token limit
    "tpot_ms": pl.Float64,  # serving: p99 time-per-output-token limit
    "spec_accept_len": pl.Float64,  # serving with speculative decoding: accepted tokens per step
    "spec_draft_len": pl.Float64,  # ... and tokens drafted per step (the target verifies k + 1)
    # role pipelines (producer -> transfer -> consumer), e.g. DFlash drafter training
    "producer_gflop_per_token": pl.Float64,  # target forward per target token
    "transfer_bytes_per_token": pl.Float64,  # hidden states moved per target token
    "consumer_model_id": pl.String,
    "consumer_gflop_per_unit": pl.Float64,  # drafter fwd+bwd per draft position
    "units_per_token": pl.Float64,  # draft positions trained per target token
    "token_unit": pl.String,  # what "tokens" counts in this workload's rates
    # serving jobs: the output tokens per second the fleet must sustain (with ttft_ms/tpot_ms
    # as its SLA); the answer is the cheapest fleet that meets both
    "demand_tokens_per_s": pl.Float64,
    # job: what a user asks about (report headlines); benchmark: an MLPerf definition kept to
    # calibrate the model against published results
    "purpose": pl.String,
    "source": pl.String,
}

GPU_ALIAS: dict[str, pl.DataType] = {
    "alias": pl.String,  # a spelling some source uses, compared case-insensitively
    "gpu_id": pl.String,
    "note": pl.String,
}

# What a provider documents an instance type to carry, which beats the name a catalog gives it
# (Azure's Standard_NC24ads_A100_v4 is a PCIe 80 GB card that SkyPilot calls "A100-80GB").
# Read by sources/gpu_identity/ before any alias or name rule.
GPU_INSTANCE: dict[str, pl.DataType] = {
    "provider": pl.String,  # as price rows name it: aws, azure, gcp, runpod, ...
    "instance_type": pl.String,  # exact, or a pattern where '*' matches anything (case-insensitive)
    "gpu_id": pl.String,
    "gpus_per_instance": pl.Float64,  # set only where a source's count is wrong (null = keep the row's)
    "note": pl.String,
    "source": pl.String,  # the provider's documentation
}

EFFICIENCY: dict[str, pl.DataType] = {
    "family": pl.String,
    "gemm_eff_bf16": pl.Float64,
    "gemm_eff_fp8": pl.Float64,
    "gemm_eff_fp4": pl.Float64,
    "serve_eff_bf16": pl.Float64,
    "serve_eff_fp8": pl.Float64,
    "serve_eff_fp4": pl.Float64,
    "mem_eff": pl.Float64,
    "source": pl.String,
}

LINK: dict[str, pl.DataType] = {
    "link_kind": pl.String,  # a platform's scaleup_kind (nvlink-switch, pcie-host, ...), or "network"
    "collective_eff": pl.Float64,  # NCCL bus bandwidth of a large all-reduce / per-direction line rate
    "hop_latency_s": pl.Float64,  # small-message all-reduce time / 2(n-1) ring steps
    "source": pl.String,
}

CONVERGENCE: dict[str, pl.DataType] = {
    "workload_id": pl.String,
    "global_batch_seqs": pl.Float64,  # sequences per optimizer step
    "samples_to_converge": pl.Float64,  # sequences of seq_len the job needs at that batch (MLPerf RCP mean)
    "source": pl.String,
}

# What a provider can actually rent out: instances of how many GPUs, clusters up to how many,
# over which interconnect. A multi-instance layout is priced only where the provider offers
# the interconnect; its size is checked against max_gpus (empty: capacity unknown).
PROVIDER_CAPACITY: dict[str, pl.DataType] = {
    "provider": pl.String,
    "gpu_id": pl.String,
    "instance_gpus": pl.Float64,
    "max_gpus": pl.Float64,  # the largest cluster the provider advertises for that GPU
    "interconnect": pl.String,  # infiniband | roce | efa | ethernet | none (empty: unknown)
    "source": pl.String,
}

KIND_EFFICIENCY: dict[str, pl.DataType] = {
    "stage": pl.String,
    "factor": pl.Float64,
    "source": pl.String,
}

ASSUMPTION: dict[str, pl.DataType] = {
    "name": pl.String,
    "value": pl.Float64,
    "unit": pl.String,
    "source": pl.String,
}

API_PRICE: dict[str, pl.DataType] = {
    "model_id": pl.String,
    "provider": pl.String,
    "usd_per_mtok_input": pl.Float64,
    "usd_per_mtok_output": pl.Float64,
    "observed_at": pl.Date,
    "source": pl.String,
    "note": pl.String,
}

FILES = {
    "gpu": ("gpu.csv", GPU),
    "platform": ("platform.csv", PLATFORM),
    "model": ("model.csv", MODEL),
    "workload": ("workload.csv", WORKLOAD),
    "gpu_alias": ("gpu_alias.csv", GPU_ALIAS),
    "gpu_instance": ("gpu_instance.csv", GPU_INSTANCE),
    "efficiency_default": ("efficiency.csv", EFFICIENCY),
    "stage_efficiency_default": ("kind_efficiency.csv", KIND_EFFICIENCY),
    "assumption": ("assumptions.csv", ASSUMPTION),
    "api_price": ("api_price.csv", API_PRICE),
    "link": ("link.csv", LINK),
    "convergence": ("convergence.csv", CONVERGENCE),
    "provider_capacity": ("provider_capacity.csv", PROVIDER_CAPACITY),
}


def data_path(filename: str):
    return resources.files("sources") / "data" / filename


def load_table(name: str) -> pl.DataFrame:
    """Read one bundled reference table with its declared types."""
    filename, schema = FILES[name]
    with resources.as_file(data_path(filename)) as path:
        frame = pl.read_csv(path, schema_overrides=schema, infer_schema_length=0, comment_prefix="#")
    return frame.select([pl.col(c).cast(t) for c, t in schema.items()])


# What identifies a row of each table; a row of your own with the same key replaces the bundled one.
KEYS: dict[str, tuple[str, ...]] = {
    "gpu": ("gpu_id",),
    "model": ("model_id",),
    "platform": ("platform_id",),
    "workload": ("workload_id",),
    "gpu_alias": ("alias",),
    "gpu_instance": ("provider", "instance_type"),
    "efficiency_default": ("family",),
    "stage_efficiency_default": ("stage",),
    "assumption": ("name",),
    "api_price": ("model_id", "provider"),
    "link": ("link_kind",),
    "convergence": ("workload_id", "global_batch_seqs"),
    "provider_capacity": ("provider", "gpu_id"),
}
# Where each row came from, for messages about it; not a column of the warehouse tables.
ORIGIN_COLUMNS = ("catalog_file", "catalog_row")


def load_catalog() -> dict[str, pl.DataFrame]:
    """The bundled catalog alone."""
    return {name: load_table(name) for name in FILES}


def load_catalog_with_yours(folder: Path | None) -> tuple[dict[str, pl.DataFrame], list[tuple[str, str]]]:
    """The bundled catalog with your rows on top, and the files of yours that could not be read.

    `folder` (the data directory's `catalog/`) may hold any of the catalog files under the
    bundled names (`gpu_alias.csv`, `workload.csv`, `model.csv`, ...) with the same columns
    (optional ones may be left out): your rows are added, and a row with the key of a
    bundled one replaces it. A file that cannot be read is skipped and reported as
    (file, why); the bundled rows stand.
    """
    tables, problems = {}, []
    for name, (filename, schema) in FILES.items():
        frame = _with_origin(load_table(name), f"bundled {filename}")
        path = folder / filename if folder else None
        if path is not None and path.is_file():
            try:
                yours = _with_origin(_read_yours(path, schema), str(path))
            except (pl.exceptions.PolarsError, OSError, UnicodeDecodeError) as exc:
                problems.append((str(path), f"{path} could not be read as {filename} ({str(exc).splitlines()[0]})"))
            else:
                key = [pl.col(c).cast(pl.String).str.strip_chars().str.to_lowercase() for c in KEYS[name]]
                replaced = yours.select(key).unique()
                kept = frame.join(replaced, left_on=key, right_on=replaced.columns, how="anti")
                frame = pl.concat([kept, yours])
        tables[name] = frame
    return tables, problems


def _read_yours(path: Path, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    raw = pl.read_csv(path, infer_schema_length=0, comment_prefix="#")
    unknown = sorted(set(raw.columns) - set(schema))
    if unknown:
        raise pl.exceptions.ColumnNotFoundError(f"unknown columns {unknown}; the columns are {list(schema)}")
    columns = [pl.col(c).cast(t, strict=False) if c in raw.columns else pl.lit(None, dtype=t).alias(c)
               for c, t in schema.items()]
    return raw.select(columns)


def _with_origin(frame: pl.DataFrame, origin: str) -> pl.DataFrame:
    return frame.with_columns(
        pl.lit(origin).alias("catalog_file"), pl.int_range(1, frame.height + 1, dtype=pl.Int64).alias("catalog_row")
    )
