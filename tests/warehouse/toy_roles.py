"""The toy catalog plus what role layouts need: a two-GPU node on a network (multi-node splits),
a second, smaller GPU type on a network (drafters on another GPU type), and a 60B target that
does not fit one toy GPU (tensor-parallel targets). Round numbers, ideal links (no latency,
collectives at line rate), so every rate can be worked out by hand."""

from __future__ import annotations

from datetime import date

import polars as pl

from tests.warehouse.toy_catalog import TOY, toy_catalog

RUN_DATE = date(2026, 11, 29)

EXTRA = {
    "gpu": [
        dict(TOY["gpu"][0], gpu_id="TOY-S", name="Small toy GPU", memory_gb=40, memory_usable_gb=40, bf16_tflops=500),
    ],
    "platform": [
        # 2 GPUs per node over PCIe (32 GB/s per direction), 8 Gbit/s = 1 GB/s NIC per GPU, 4 nodes
        dict(TOY["platform"][1], platform_id="toy-node-2", name="two toys per node", gpus_per_node=2,
             scaleup_domain_gpus=2, network_gbps_per_gpu=8, node_power_kw=1.0, capex_usd_per_node=20000, max_nodes=4),
        # the small GPU, 2 per node, 16 Gbit/s = 2 GB/s NIC per GPU
        dict(TOY["platform"][1], platform_id="toys-2", name="two small toys", gpu_id="TOY-S", gpus_per_node=2,
             scaleup_domain_gpus=2, network_gbps_per_gpu=16, node_power_kw=0.5, capex_usd_per_node=5000, max_nodes=1),
    ],
    "model": [dict(TOY["model"][0], model_id="toy-60b", name="60B toy", params_total_b=60.0, params_active_b=60.0)],
    "workload": [
        # 120 GFLOP per target token (2 x 60B); the drafter as in toy-pipeline
        dict(TOY["workload"][4], workload_id="toy-pipeline-big", name="toy drafter, big target", model_id="toy-60b",
             producer_gflop_per_token=120),
    ],
    "gpu_alias": [dict(alias="TOY-S", gpu_id="TOY-S")],
    "assumption": [dict(name="spot_restart_overhead", value=0.1, unit="", source="hand-made")],
}


def role_catalog() -> dict[str, pl.DataFrame]:
    catalog = toy_catalog()
    for name, rows in EXTRA.items():
        frame = catalog[name]
        if name == "assumption":  # keep the toy's own value if it has one
            rows = [r for r in rows if r["name"] not in frame["name"].to_list()]
        catalog[name] = pl.concat([frame, pl.DataFrame(rows, schema=frame.schema)], how="vertical")
    return catalog


def add_quote(con, instance_type: str, gpu: str, gpus: int, usd_per_hour: float, pricing: str) -> None:
    """One price quote observed before the run date, as a source would have loaded it."""
    con.execute(
        """insert into price_quote (provider, region, zone, instance_type, gpu, gpu_name, gpus_per_instance,
               usd_per_instance_hour, usd_per_gpu_hour, pricing, currency, observed_at, source, source_ref,
               source_row, run_id)
           values ('acme', 'toyland', null, ?, ?, ?, ?, ?, ?, ?, 'USD', ?, 'test', 'hand-made', 1, 'toy')""",
        [instance_type, gpu, gpu, gpus, usd_per_hour, usd_per_hour / gpus, pricing, RUN_DATE],
    )


def synced_drafter_rate(drafters: int, per_gpu: float, grad_bytes: float, link_gbs: float, seq_len: int,
                        global_seqs: int) -> float:
    """Target tokens/s that `drafters` data-parallel drafter GPUs absorb, worked by hand: per step
    of `global_seqs` sequences each trains its share, then all-reduces the bf16 gradients
    (2 (d-1)/d x bytes over the link), of which the last sequence's backward (2/3 of its time)
    hides a part."""
    step = global_seqs * seq_len
    allreduce = 2 * (drafters - 1) / drafters * grad_bytes / (link_gbs * 1e9)
    exposed = max(0.0, allreduce - 2 / 3 * seq_len / per_gpu)
    return step / (step / (drafters * per_gpu) + exposed)
