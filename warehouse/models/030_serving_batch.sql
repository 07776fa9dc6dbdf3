-- serving_batch: every batch of every serving layout (serving_layout) in serving_scope that
-- fits in memory (and batch 1 of every layout, to say why when none does), timed per GPU and
-- op by op (each op its own roofline, then summed; modeling.md §2), with its memory fit, at
-- the documented efficiencies, beside the calibration factor serving_choice applies (a layout
-- appears once per serving_factor row of its workload, platform and GPU count; without one,
-- at factor 1). serving_choice then applies the factor and the latency limits. A view: each
-- serving pass times its own scope as it chooses, which costs less than storing ~1.2 million
-- wide rows at the 10M-estimate bench.
create or replace view serving_batch as
with factored_layout as (
    -- the factor joined per layout, before the batches multiply it: joined per batch it took
    -- 0.1 s of the published pass at the 10M-estimate bench
    select l.*, coalesce(f.factor, 1.0) as factor, f.case_index, f.band_p90
    from serving_layout l
    left join serving_factor f
      on f.workload_id = l.workload_id and f.platform_id = l.platform_id and f.n_gpus = l.n_gpus
),
sized as (
    select
        f.*,
        g.b_gpu,
        case when f.family = 'ep' then g.b_gpu * f.ep else g.b_gpu end as b,
        -- sequences whose attention and KV cache one GPU (or one tensor-parallel group) holds:
        -- tp, the replica's b; ep, each GPU's own
        g.b_gpu as b_attn
    from factored_layout f
    -- the first pass times only the platforms of measured and requested cases
    join serving_scope using (workload_id, platform_id)
    cross join (values (1), (2), (4), (8), (16), (24), (32), (48), (64), (96), (128), (192), (256),
                       (384), (512), (768), (1024), (1536), (2048), (3072), (4096)) g(b_gpu)
),
held as (
    select
        *,
        -- tokens decoded per step by the GPUs that hold this GPU's weights
        b * verify_len as step_tokens,
        (b_attn * mean_ctx * kv_bytes_per_token / (pp * least(tp, kv_tp_shards))
         + b_attn * state_mb_per_seq * 1e6 / (tp * pp)) / 1e9 as kv_gb
    from sized
),
fitting as (
    -- a batch that does not fit in memory is never chosen, so only batch 1 of such a layout is
    -- timed (to say why nothing fits); this drops most of the grid for the largest models
    select * from held
    where b_gpu = 1 or weights_gb + kv_gb <= memory_usable_gb * assume('memory_headroom')
),
timed as (
    select
        *,
        -- always-active GEMMs: every GPU of the replica shares the step's tokens
        2.0 * dense_params_b * 1e9 * step_tokens / replica_gpus
            / (dense_peak_tflops * 1e12 * dense_serve_eff * decode_factor) as t_dense_compute_s,
        2.0 * (params_active_b - dense_params_b) * 1e9 * step_tokens / replica_gpus * imbalance
            / (peak_tflops * 1e12 * serve_eff * decode_factor) as t_expert_compute_s,
        -- the experts a step touches: each is hit with probability 1 - (1 - k/E)^tokens
        routed_params_b * 1e9 * expert_wbytes * expert_share * pp
            * experts_touched_fraction(experts, experts_active, step_tokens / pp)
            / (mem_bw_tbps * 1e12 * mem_eff) as t_expert_memory_s,
        b_attn * verify_len * mean_ctx * attn_layers * attn_decode_flops / (tp * pp)
            / (wide_peak_tflops * 1e12 * wide_serve_eff * decode_factor) as t_attn_compute_s,
        -- softmax: one exponential per head per cached token, on the special-function units
        case when exp_per_s > 0
             then b_attn * verify_len * mean_ctx * attn_layers * q_heads / (tp * pp) / exp_per_s else 0 end
            as t_attn_exp_s,
        (b_attn * mean_ctx * kv_bytes_per_token / (pp * least(tp, kv_tp_shards))
         + b_attn * state_mb_per_seq * 1e6 / (tp * pp)) / (mem_bw_tbps * 1e12 * mem_eff) as t_attn_memory_s,
        -- drafting: the drafter (and the target's LM head it shares) over the block
        greatest(2.0 * draft_active_params * step_tokens / replica_gpus
                     / (peak_tflops * 1e12 * serve_eff * decode_factor),
                 t_draft_memory_s) as t_draft_s,
        2.0 * layers * allreduce_s(b / pp * verify_len * hidden * 2.0, tp, tp_gbs, tp_hop_s)
            + case when pp > 1 then (pp - 1) * (b / pp * verify_len * hidden * 2.0 / (pp_gbs * 1e9) + pp_hop_s)
                   else 0 end as t_tp_pp_comm_s,
        case when family = 'ep' then moe_layers * (
                 b_gpu * verify_len * hidden * a2a_bytes * least(experts_active, ep) * (ep - 1.0) / ep
                     * imbalance / (a2a_gbs * 1e9)
                 + a2a_latency_s) else 0 end as t_a2a_s
    from fitting
),
stepped as (
    select
        *,
        -- with continuous batching each step also carries the prefill of arriving requests;
        -- disaggregated, the prompts run elsewhere (serving_layout's t_kv_transfer_s)
        case when disagg then 0
             else (b * t_prefill_share_s + b_attn * t_prefill_comm_s) / (output_len / accept_len) end
            as t_prefill_load_s
    from timed
),
decoded as (
    select
        *,
        greatest(t_dense_compute_s, t_dense_memory_s) + greatest(t_expert_compute_s, t_expert_memory_s)
            + greatest(t_attn_compute_s, t_attn_exp_s, t_attn_memory_s) + t_draft_s + t_tp_pp_comm_s + t_a2a_s
            as t_decode_s
    from stepped
)
select
    workload_id, platform_id, gpu_id, dtype, run_dtype, family, tp, pp, ep, b, b_gpu, replica_gpus, replicas, n_gpus,
    factor, case_index, band_p90,
    scaleup_group,
    disagg,
    input_len, demand_tokens_per_s, t_prefill_work_s, t_kv_transfer_s,
    gpus_per_node, scaleup_domain_gpus, node_power_kw, memory_usable_gb,
    scenario, ttft_ms, tpot_ms, total_tokens, token_unit, output_len, output_len_cv, max_output_len, samples, accept_len,
    serve_eff * decode_factor as compute_eff,
    t_dense_compute_s + t_expert_compute_s + t_attn_compute_s as t_compute_s,
    t_dense_memory_s + t_expert_memory_s + t_attn_memory_s as t_memory_s,
    t_tp_pp_comm_s + t_a2a_s as t_comm_s,
    t_decode_s, t_prefill_load_s, t_prefill_s,
    weights_gb + kv_gb as mem_per_gpu_gb,
    weights_gb + kv_gb <= memory_usable_gb * assume('memory_headroom') as fits_memory,
    -- Server and Interactive arrivals are Poisson: to keep the 99th percentile of requests in
    -- flight within b, the mean must stay below it (requests in flight are Poisson with mean
    -- m: m + z sqrt(m) = b, modeling notes §3); the share of b a replica sustains
    case when scenario = 'Offline' then 1.0
         else pow((sqrt(pow(assume('poisson_z'), 2) + 4.0 * b) - assume('poisson_z')) / 2.0, 2) / b end
        as occupancy,
    case greatest(t_dense_compute_s, t_dense_memory_s, t_expert_compute_s, t_expert_memory_s, t_attn_compute_s,
                  t_attn_exp_s, t_attn_memory_s, t_draft_s, t_tp_pp_comm_s, t_a2a_s, t_prefill_load_s)
        when t_dense_memory_s then 'memory bandwidth (weights)'
        when t_expert_memory_s then 'memory bandwidth (expert weights)'
        when t_attn_memory_s then 'memory bandwidth (KV cache)'
        when t_dense_compute_s then 'compute (decode)'
        when t_expert_compute_s then 'compute (experts)'
        when t_attn_compute_s then 'compute (attention)'
        when t_attn_exp_s then 'softmax exponentials'
        when t_draft_s then 'drafting'
        when t_a2a_s then (case when ep <= scaleup_domain_gpus then 'expert all-to-all (scale-up)'
                                else 'expert all-to-all (network)' end)
        when t_tp_pp_comm_s then (case when tp * pp > gpus_per_node then 'network communication'
                                       when tp > scaleup_domain_gpus then 'PCIe communication'
                                       else 'scale-up communication' end)
        else 'compute (prefill)' end as bottleneck
from decoded;
