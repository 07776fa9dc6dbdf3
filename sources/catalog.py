"""The bundled reference catalog: accelerators, platforms, models, workloads and GPU aliases.

These are facts with sources (datasheets, papers, MLPerf rules), kept as CSV files under
`sources/data/` so a reviewer can diff them. Every row carries `source` (URL or document).
"""

from __future__ import annotations

from importlib import resources

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
    "kv_dim_per_layer": pl.Int64,  # elements cached per token per attention layer (K+V, or MLA latent)
    "state_mb_per_seq": pl.Float64,  # fixed recurrent state per sequence (GDN), MB
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
    "source": pl.String,
}

GPU_ALIAS: dict[str, pl.DataType] = {
    "alias": pl.String,  # a spelling some source uses, compared case-insensitively
    "gpu_id": pl.String,
    "note": pl.String,
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
    "link_eff": pl.Float64,
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
    "efficiency_default": ("efficiency.csv", EFFICIENCY),
    "stage_efficiency_default": ("kind_efficiency.csv", KIND_EFFICIENCY),
    "assumption": ("assumptions.csv", ASSUMPTION),
    "api_price": ("api_price.csv", API_PRICE),
}


def data_path(filename: str):
    return resources.files("sources") / "data" / filename


def load_table(name: str) -> pl.DataFrame:
    """Read one bundled reference table with its declared types."""
    filename, schema = FILES[name]
    with resources.as_file(data_path(filename)) as path:
        frame = pl.read_csv(path, schema_overrides=schema, infer_schema_length=0, comment_prefix="#")
    return frame.select([pl.col(c).cast(t) for c, t in schema.items()])


def load_catalog() -> dict[str, pl.DataFrame]:
    return {name: load_table(name) for name in FILES}
