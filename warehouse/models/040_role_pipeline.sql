-- Role pipelines (DFlash drafter training): K producer GPUs run the target forward and emit
-- hidden states, a transfer stage moves them, M consumer GPUs train the drafter. Throughput
-- is the slowest stage; every split K + M of the GPUs is enumerated.

create or replace table role_split as
with splits as (
    select w.workload_id, p.platform_id, o.n, k.k as producers, o.n - k.k as consumers
    from workload_spec w
    cross join platform_spec p
    join gpu_count_option o on o.platform_id = p.platform_id
    cross join range(1, 1024) k(k)
    where w.kind = 'role_pipeline'
      and o.n >= 2 and k.k < o.n
      -- the pipeline lives in one scale-up domain or one system
      and o.n <= greatest(p.scaleup_domain_gpus, p.gpus_per_node)
)
select
    s.*,
    pw.dtype,
    p.gpu_id, p.gpus_per_node, p.scaleup_kind, p.memory_usable_gb, p.node_power_kw,
    pw.run_dtype, pw.peak_tflops,
    -- the producer is a serving engine (SGLang capture server); the consumer a training stack
    pw.serve_eff * coalesce(fp.factor, 0.75) as producer_eff,
    pw.gemm_eff * coalesce(fc.factor, 0.50) as consumer_eff,
    -- hidden states reach a consumer over NVLink/IF, or via host memory over PCIe
    case when p.scaleup_kind = 'pcie-host' or p.scaleup_gbs = 0 then p.host_gbs * p.link_eff
         else p.scaleup_gbs * p.link_eff end as link_gbs,
    case when p.scaleup_kind = 'pcie-host' or p.scaleup_gbs = 0 then 'PCIe transfer via host'
         else 'scale-up transfer' end as transfer_name,
    w.producer_gflop_per_token, w.transfer_bytes_per_token, w.consumer_gflop_per_unit, w.units_per_token,
    w.total_tokens, w.token_unit,
    -- producer holds the frozen target in the run dtype plus one sequence of activations
    (w.params_total_b * 1e9 * dtype_bytes(pw.run_dtype) + 34.0 * w.seq_len * w.hidden) / 1e9
        as producer_mem_gb,
    -- consumer trains the drafter (16 B/param AdamW mixed precision) next to the target's
    -- frozen embedding and LM head (2 x vocab x hidden in bf16)
    (coalesce(w.consumer_params_b, 0) * 1e9 * 16.0
     + 2.0 * coalesce(w.consumer_vocab, w.vocab) * coalesce(w.consumer_hidden, w.hidden) * 2.0
     + 34.0 * w.seq_len * w.hidden * 5) / 1e9 as consumer_mem_gb
from splits s
join workload_spec w using (workload_id)
join platform_spec p using (platform_id)
join platform_workload pw using (platform_id, workload_id)
left join stage_efficiency_default fp on fp.stage = 'producer'
left join stage_efficiency_default fc on fc.stage = 'consumer';

create or replace table topology_role as
with rates as (
    select
        *,
        producers * peak_tflops * 1e12 * producer_eff / (producer_gflop_per_token * 1e9) as producer_rate,
        consumers * link_gbs * 1e9 / transfer_bytes_per_token as transfer_rate,
        consumers * peak_tflops * 1e12 * consumer_eff / (consumer_gflop_per_unit * 1e9 * units_per_token)
            as consumer_rate
    from role_split
)
select
    workload_id, platform_id, gpu_id, 'role_pipeline' as kind, dtype,
    n as n_gpus, cast(ceil(n / gpus_per_node) as integer) as nodes,
    producers, consumers,
    producers || '+' || consumers || ' (' || producers || ' target, ' || consumers || ' drafter)' as layout,
    n as scaleup_group,
    run_dtype,
    producer_eff as compute_eff,
    1.0 / producer_rate as t_compute_s,          -- seconds per token in each stage
    1.0 / transfer_rate as t_comm_s,
    1.0 / consumer_rate as t_consumer_s,
    producer_rate, transfer_rate, consumer_rate,
    case least(producer_rate, transfer_rate, consumer_rate)
        when producer_rate then 'compute (target forward)'
        when transfer_rate then transfer_name
        else 'compute (drafter training)' end as bottleneck,
    greatest(producer_mem_gb, consumer_mem_gb) as mem_per_gpu_gb,
    memory_usable_gb * assume('memory_headroom') as mem_capacity_gb,
    greatest(producer_mem_gb, consumer_mem_gb) <= memory_usable_gb * assume('memory_headroom') as fits,
    least(producer_rate, transfer_rate, consumer_rate) as tokens_per_s,
    total_tokens, token_unit,
    node_power_kw / gpus_per_node as kw_per_gpu
from rates;
