-- Serving: per replica of tp x pp GPUs, every batch size in a grid. Prefill and decode are
-- timed separately; the batch is the largest that fits memory and meets the scenario's
-- TTFT/TPOT limits, and a whole system is filled with replicas.

create or replace view serving_batch as
with grid as (
    select
        w.workload_id, p.platform_id, tp.tp, pp.pp, b.b
    from workload_spec w
    cross join platform_spec p
    cross join (values (1), (2), (4), (8)) tp(tp)
    cross join (values (1), (2), (4)) pp(pp)
    cross join (values (1), (2), (4), (8), (16), (24), (32), (48), (64), (96), (128), (192), (256),
                       (384), (512), (768), (1024), (1536), (2048), (3072), (4096)) b(b)
    where w.kind = 'serving'
      and tp.tp <= p.scaleup_domain_gpus
      and (pp.pp = 1 or tp.tp = least(p.gpus_per_node, 8))
      and tp.tp * pp.pp <= p.gpus_per_node * p.max_nodes
),
sized as (
    select
        g.*,
        g.tp * g.pp as replica_gpus,
        pw.dtype,
        w.scenario, w.input_len, w.output_len, w.ttft_ms, w.tpot_ms, w.total_tokens,
        -- speculative decoding: the target verifies k + 1 tokens per sequence per step and
        -- keeps accept_len of them; the drafter (consumer model) drafts the block in one pass
        coalesce(w.spec_accept_len, 1.0) as accept_len,
        coalesce(w.spec_draft_len, 0) + 1 as verify_len,
        case when w.spec_draft_len > 0
             then coalesce(w.consumer_params_b, 0) * 1e9 + coalesce(w.consumer_vocab, w.vocab) * w.hidden
             else 0 end as draft_params,
        w.params_total_b, w.params_active_b, w.layers, w.attn_layers, w.hidden, w.q_heads, w.head_dim,
        w.experts, w.experts_active, w.kv_dim_per_layer, w.state_mb_per_seq,
        p.gpu_id, p.gpus_per_node, p.scaleup_domain_gpus, p.memory_usable_gb, p.mem_bw_tbps, p.mem_eff,
        p.node_power_kw, p.scaleup_gbs * p.link_eff as tp_gbs,
        case when g.tp * g.pp <= p.gpus_per_node then p.scaleup_gbs * p.link_eff
             else p.network_gbs * p.link_eff end as pp_gbs,
        pw.run_dtype, pw.peak_tflops,
        pw.serve_eff * coalesce(s.factor, 1.0) as compute_eff,
        dtype_bytes(pw.run_dtype) as wbytes,
        -- KV cache in fp8 where the weights run in fp8/fp4 (TensorRT-LLM, vLLM), else bf16
        case when pw.run_dtype in ('fp8', 'fp4') then 1.0 else 2.0 end as kv_bytes,
        w.input_len + w.output_len / 2.0 as mean_ctx
    from grid g
    join workload_spec w using (workload_id)
    join platform_spec p using (platform_id)
    join platform_workload pw using (platform_id, workload_id)
    left join stage_efficiency_default s on s.stage = 'prefill'
),
timed as (
    select
        *,
        ((params_total_b * 1e9 + draft_params) * wbytes
         + b * mean_ctx * kv_bytes_per_token(attn_layers, kv_dim_per_layer, kv_bytes)
         + b * state_mb_per_seq * 1e6) / replica_gpus / 1e9 as mem_per_gpu_gb,
        -- one decode step, op by op (each op its own roofline, then summed, modeling.md §2):
        -- the weight GEMMs read the weights the batch touches; attention reads every KV cache
        2.0 * params_active_b * 1e9 * b * verify_len
            / (replica_gpus * peak_tflops * 1e12 * compute_eff) as t_gemm_compute_s,
        -- with pp stages the batch moves as pp micro-batches and every stage streams its
        -- weights once per micro-batch: pipeline parallelism buys memory, not bandwidth
        pp * decode_weight_bytes(params_total_b, params_active_b, experts, experts_active, b / pp, wbytes)
            / (replica_gpus * mem_bw_tbps * 1e12 * mem_eff) as t_gemm_memory_s,
        4.0 * attn_layers * q_heads * head_dim * mean_ctx * b * verify_len
            / (replica_gpus * peak_tflops * 1e12 * compute_eff) as t_attn_compute_s,
        -- drafting: the drafter (and the target's LM head it shares) over the block
        greatest(2.0 * draft_params * b * verify_len / (replica_gpus * peak_tflops * 1e12 * compute_eff),
                 draft_params * wbytes / (replica_gpus * mem_bw_tbps * 1e12 * mem_eff)) as t_draft_s,
        (b * mean_ctx * kv_bytes_per_token(attn_layers, kv_dim_per_layer, kv_bytes) + b * state_mb_per_seq * 1e6)
            / (replica_gpus * mem_bw_tbps * 1e12 * mem_eff) as t_attn_memory_s,
        2.0 * layers * allreduce_s(b * hidden * 2.0, tp, tp_gbs, assume('collective_latency_s'))
            + case when pp > 1 then (pp - 1) * (b * hidden * 2.0 / (pp_gbs * 1e9) + assume('network_latency_s'))
                   else 0 end as t_decode_comm_s,
        prefill_flops(params_active_b, attn_layers, q_heads, head_dim, input_len)
            / (replica_gpus * peak_tflops * 1e12 * compute_eff)
            + 2.0 * layers * allreduce_s(input_len * hidden * 2.0, tp, tp_gbs, assume('collective_latency_s'))
            as t_prefill_s
    from sized
),
stepped as (
    select
        *,
        t_gemm_compute_s + t_attn_compute_s as t_decode_compute_s,
        t_gemm_memory_s + t_attn_memory_s as t_decode_memory_s,
        greatest(t_gemm_compute_s, t_gemm_memory_s) + greatest(t_attn_compute_s, t_attn_memory_s)
            + t_draft_s + t_decode_comm_s as t_decode_s,
        -- with continuous batching each step also carries the prefill of arriving requests
        greatest(t_gemm_compute_s, t_gemm_memory_s) + greatest(t_attn_compute_s, t_attn_memory_s)
            + t_draft_s + t_decode_comm_s + b * t_prefill_s / (output_len / accept_len) as t_step_s
    from timed
)
select
    *,
    mem_per_gpu_gb <= memory_usable_gb * assume('memory_headroom') as fits,
    t_step_s / accept_len as tpot_s,
    t_prefill_s + t_step_s as ttft_s,
    (tpot_ms is null or t_step_s / accept_len <= tpot_ms / 1000.0 * assume('latency_headroom'))
        and (ttft_ms is null or t_prefill_s + t_step_s <= ttft_ms / 1000.0 * assume('latency_headroom'))
        as meets_latency,
    -- output tokens per second of one replica
    b * accept_len / t_step_s * (case when scenario = 'Offline' then 1.0 else assume('server_load_factor') end)
        as replica_tokens_per_s,
    case greatest(t_gemm_compute_s, t_gemm_memory_s, t_attn_compute_s, t_attn_memory_s, t_decode_comm_s,
                  t_draft_s, b * t_prefill_s / (output_len / accept_len))
        when t_gemm_memory_s then 'memory bandwidth (weights)'
        when t_attn_memory_s then 'memory bandwidth (KV cache)'
        when t_gemm_compute_s then 'compute (decode)'
        when t_attn_compute_s then 'compute (attention)'
        when t_draft_s then 'drafting'
        when t_decode_comm_s then (case when pp > 1 and replica_gpus > gpus_per_node then 'network communication'
                                        else 'scale-up communication' end)
        else 'compute (prefill)' end as bottleneck
from stepped;

-- The best batch per replica layout: largest throughput that fits and meets the limits.
create or replace table topology_serving as
with ranked as (
    select
        *,
        row_number() over (partition by workload_id, platform_id, dtype, tp, pp
                           order by fits and meets_latency desc,
                                    case when fits and meets_latency then replica_tokens_per_s
                                         else -mem_per_gpu_gb end desc) as rank
    from serving_batch
),
best as (select * from ranked where rank = 1)
select
    workload_id, platform_id, gpu_id, 'serving' as kind, dtype,
    -- a deployment is one system full of replicas (or one replica spanning several systems)
    cast(greatest(replica_gpus, (gpus_per_node // replica_gpus) * replica_gpus) as integer) as n_gpus,
    cast(ceil(greatest(replica_gpus, (gpus_per_node // replica_gpus) * replica_gpus) / gpus_per_node)
         as integer) as nodes,
    tp, pp, cast(greatest(1, gpus_per_node // replica_gpus) as integer) as dp,
    b as batch,
    'tp' || tp || ' pp' || pp || ' x' || greatest(1, gpus_per_node // replica_gpus) || ' replicas, batch ' || b
        as layout,
    tp as scaleup_group,
    run_dtype, compute_eff,
    t_decode_compute_s as t_compute_s, t_decode_memory_s as t_memory_s, t_decode_comm_s as t_comm_s,
    t_prefill_s, t_step_s, tpot_s, ttft_s,
    bottleneck,
    mem_per_gpu_gb,
    memory_usable_gb * assume('memory_headroom') as mem_capacity_gb,
    fits and meets_latency as fits,
    case when not fits then 'does not fit in memory even at batch 1'
         when not meets_latency then 'cannot meet the TTFT/TPOT limits at any batch'
    end as refusal,
    replica_tokens_per_s * greatest(1, gpus_per_node // replica_gpus) as tokens_per_s,
    total_tokens,
    node_power_kw / gpus_per_node as kw_per_gpu
from best;
