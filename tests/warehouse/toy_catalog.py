"""A tiny catalog with round numbers, so model outputs can be worked out by hand."""

from __future__ import annotations

from datetime import date

import polars as pl

from sources.bundled.catalog import FILES
from sources.kit.contracts import BENCHMARK_RESULT, conform

TOY = {
    "gpu": [
        dict(
            gpu_id="TOY",
            vendor="test",
            name="Toy GPU",
            family="toy",
            memory_gb=80,
            memory_usable_gb=80,
            mem_bw_tbps=2.0,
            bf16_tflops=1000,
            scaleup_gbps_bidir=0,
            host_link_gbps_bidir=64,
            tdp_w=500,
            price_usd_low=10000,  # plausible rental: 0.057 (floor) to 20 (ceiling) USD per GPU-hour
            price_usd_high=10000,
            confidence="estimate",
            source="hand-made",
            source_date=date(2026, 1, 1),
        ),
    ],
    "platform": [
        dict(
            platform_id="toy-1",
            name="one toy",
            gpu_id="TOY",
            gpus_per_node=1,
            scaleup_domain_gpus=1,
            scaleup_kind="none",
            scaleup_gbps_bidir=0,
            host_link_gbps_bidir=64,
            network_gbps_per_gpu=0,
            node_power_kw=1.0,
            capex_usd_per_node=10000,
            max_nodes=1,
            source="hand-made",
        ),
        dict(
            platform_id="toy-ws-4",
            name="four toys on PCIe",
            gpu_id="TOY",
            gpus_per_node=4,
            scaleup_domain_gpus=4,
            scaleup_kind="pcie-host",
            scaleup_gbps_bidir=64,
            host_link_gbps_bidir=64,
            network_gbps_per_gpu=0,
            node_power_kw=2.0,
            capex_usd_per_node=40000,
            max_nodes=1,
            source="hand-made",
        ),
    ],
    "model": [
        dict(
            model_id="toy-1b",
            name="1B toy",
            params_total_b=1.0,
            params_active_b=1.0,
            layers=10,
            attn_layers=10,
            hidden=1000,
            ffn=4000,
            q_heads=8,
            kv_heads=8,
            head_dim=125,
            vocab=1000,
            kv_dim_per_layer=2000,
            source="hand-made",
        ),
        dict(
            model_id="toy-10b",
            name="10B toy",
            params_total_b=10.0,
            params_active_b=10.0,
            layers=40,
            attn_layers=40,
            hidden=5000,
            ffn=20000,
            q_heads=40,
            kv_heads=8,
            head_dim=125,
            vocab=1000,
            kv_dim_per_layer=2000,
            source="hand-made",
        ),
    ],
    "workload": [
        dict(
            workload_id="toy-pretrain",
            name="toy pretraining",
            kind="pretrain",
            model_id="toy-1b",
            dtype="bf16",
            total_tokens=8e9,
            seq_len=1000,
            global_batch_seqs=8,
            source="hand-made",
        ),
        dict(
            workload_id="toy-lora",
            name="toy LoRA",
            kind="finetune_lora",
            model_id="toy-1b",
            dtype="bf16",
            total_tokens=8e9,
            seq_len=1000,
            global_batch_seqs=8,
            source="hand-made",
        ),
        dict(
            workload_id="toy-server",
            name="toy serving",
            kind="serving",
            model_id="toy-10b",
            dtype="bf16",
            total_tokens=1e9,
            input_len=1000,
            output_len=1000,
            scenario="Server",
            ttft_ms=2000,
            tpot_ms=30,
            source="hand-made",
        ),
        dict(
            workload_id="toy-offline",
            name="toy offline",
            kind="serving",
            model_id="toy-10b",
            dtype="bf16",
            total_tokens=1e9,
            input_len=1000,
            output_len=1000,
            scenario="Offline",
            source="hand-made",
        ),
        dict(
            workload_id="toy-pipeline",
            name="toy drafter",
            kind="role_pipeline",
            model_id="toy-1b",
            dtype="bf16",
            total_tokens=1e9,
            seq_len=1000,
            global_batch_seqs=1000,
            producer_gflop_per_token=50,
            transfer_bytes_per_token=50000,
            consumer_model_id="toy-1b",
            consumer_gflop_per_unit=10,
            units_per_token=1,
            token_unit="target tokens",
            source="hand-made",
        ),
    ],
    "gpu_alias": [dict(alias="TOY", gpu_id="TOY"), dict(alias="Toy GPU 80GB", gpu_id="TOY")],
    # ideal links: collectives at line rate, no latency, so bandwidth terms can be worked out by hand
    "link": [dict(link_kind=k, collective_eff=1.0, hop_latency_s=0.0, source="hand-made")
             for k in ("none", "pcie-host", "pcie-host-copy", "network")],
    "efficiency_default": [
        dict(family="toy", gemm_eff_bf16=0.5, serve_eff_bf16=0.5, mem_eff=1.0, source="hand-made"),
    ],
    "stage_efficiency_default": [
        dict(stage=s, factor=1.0, source="hand-made")
        for s in ("pretrain", "finetune_lora", "prefill", "decode", "producer", "consumer")
    ],
    "assumption": [
        dict(name=n, value=v, unit="", source="hand-made")
        for n, v in {
            "ownership_years": 5,
            "pue": 1.0,
            "usd_per_kwh": 0.1,
            "colo_usd_per_kw_month": 0,
            "ownership_utilization": 1.0,
            "failed_work_overhead": 0.0,
            "memory_headroom": 0.92,
            "poisson_z": 0.0,  # no arrival noise: the batch the limits allow is the batch served
            "prefill_chunk_tokens": 8192,
            "moe_imbalance": 1.0,
            "a2a_latency_s": 0.0,
            "a2a_network_latency_s": 0.0,
            "min_backtest_points": 5,
            "mlperf_min_duration_s": 600,
            "spot_restart_overhead": 0.10,
            "disagg_prefill_utilization": 1.0,
            "max_fleet_gpus": 1e7,
            "train_step_fixed_s": 0.0,  # the toy's steps cost their work alone unless a test sets one
        }.items()
    ],
}


def toy_catalog() -> dict[str, pl.DataFrame]:
    return {name: pl.DataFrame(TOY.get(name, []), schema=schema) for name, (_, schema) in FILES.items()}


def benchmark(**overrides) -> dict:
    """A measured toy run; keyword arguments change any field."""
    row = dict(
        suite="user_run",
        benchmark="toy-pretrain",
        workload_id="toy-pretrain",
        scenario="training",
        system="one toy",
        gpu_name="TOY",
        gpu_count=1,
        nodes=1,
        metric="tokens_per_s",
        value=8000.0,
        unit="tokens/s",
        measured_at=date(2026, 11, 1),
        source="test",
        source_ref="runs.csv",
        source_row=1,
    )
    row.update(overrides)
    return row


def benchmark_frame(rows: list[dict]) -> pl.DataFrame:
    """Benchmark rows as a source would hand them over."""
    return conform(pl.DataFrame(rows, schema={k: BENCHMARK_RESULT[k] for k in rows[0]}), BENCHMARK_RESULT)
