-- serving_batch: every batch of every serving layout (serving_layout) in serving_scope that
-- fits in memory (and batch 1 of every layout, to say why when none does; Offline, only the
-- batch serving_choice would take), timed per GPU and op by op (each op its own roofline, then
-- summed; modeling.md §2), with its memory fit, at the documented efficiencies;
-- serving_choice applies a calibration factor and the latency limits. A view: each serving
-- pass times its own scope as it chooses, which costs less than storing ~1.2 million wide rows
-- at the 10M-estimate bench.
create or replace view serving_batch as
with sized as (
    select
        f.*,
        g.b_gpu,
        case when f.family = 'ep' then g.b_gpu * f.ep else g.b_gpu end as b,
        -- sequences whose attention and KV cache one GPU (or one tensor-parallel group) holds:
        -- tp, the replica's b; ep, each GPU's own
        g.b_gpu as b_attn
    from serving_layout f
    -- the first pass times only the platforms of measured and requested cases
    join serving_scope using (workload_id, platform_id)
    cross join (values (1), (2), (4), (8), (16), (24), (32), (48), (64), (96), (128), (192), (256),
                       (384), (512), (768), (1024), (1536), (2048), (3072), (4096)) g(b_gpu)
),
per_gpu as (
    select
        *,
        -- routed experts one GPU holds: all of them over tp x pp, or ceil(E / ep) of E
        case when family = 'ep' then ceil(experts / ep) / experts else 1.0 / (tp * pp) end as expert_share,
        case when family = 'ep' then 1.0 else 1.0 / (tp * pp) end as dense_share,
        -- tokens decoded per step by the GPUs that hold this GPU's weights
        b * verify_len as step_tokens,
        case when family = 'ep' then assume('moe_imbalance') else 1.0 end as imbalance,
        attn_layers * kv_dim_per_layer * kv_bytes as kv_bytes_per_token
    from sized
),
held as (
    select
        *,
        -- weights in GB: parameters (billions) x bytes, as this GPU holds them; the drafter rides
        -- along with every attention shard
        dense_params_b * dense_wbytes * dense_share + routed_params_b * expert_wbytes * expert_share
            -- the drafter's experts spread over the expert-parallel GPUs like the target's
            + draft_params / 1e9 * dense_wbytes * (case when family = 'ep' then expert_share else dense_share end)
            as weights_gb,
        (b_attn * mean_ctx * kv_bytes_per_token / (pp * least(tp, kv_tp_shards))
         + b_attn * state_mb_per_seq * 1e6 / (tp * pp)) / 1e9 as kv_gb
    from per_gpu
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
        -- with pp stages the batch moves as pp micro-batches and every stage streams its weights
        -- once per micro-batch: pipeline parallelism buys memory, not bandwidth
        dense_params_b * 1e9 * dense_wbytes * dense_share * pp / (mem_bw_tbps * 1e12 * mem_eff)
            as t_dense_memory_s,
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
                 draft_params * dense_wbytes * (case when family = 'ep' then expert_share else dense_share end)
                     / (mem_bw_tbps * 1e12 * mem_eff)) as t_draft_s,
        2.0 * layers * allreduce_s(b / pp * verify_len * hidden * 2.0, tp, tp_gbs, tp_hop_s)
            + case when pp > 1 then (pp - 1) * (b / pp * verify_len * hidden * 2.0 / (pp_gbs * 1e9) + pp_hop_s)
                   else 0 end as t_tp_pp_comm_s,
        case when family = 'ep' then moe_layers * (
                 b_gpu * verify_len * hidden * a2a_bytes * least(experts_active, ep) * (ep - 1.0) / ep
                     * imbalance / (a2a_gbs * 1e9)
                 + a2a_latency_s) else 0 end as t_a2a_s,
        -- prefill of one prompt as the GPU that runs it would alone: its GEMMs (experts at the
        -- busiest rank's load) and causal attention over the prompt
        (2.0 * dense_params_b * 1e9 * input_len / (dense_peak_tflops * 1e12 * dense_serve_eff)
         + 2.0 * (params_active_b - dense_params_b) * 1e9 * input_len * imbalance
             / (peak_tflops * 1e12 * serve_eff)
         + attn_layers * attn_prefill_flops * input_len * input_len / 2.0
             / (wide_peak_tflops * 1e12 * wide_serve_eff)) / prefill_factor as t_prefill_work_s,
        -- its collectives on one GPU: tp all-reduces of the prompt's activations for this stage's
        -- layers, or the prompt's tokens sent to their experts and back
        case when family = 'ep'
             then moe_layers * (input_len * hidden * a2a_bytes * least(experts_active, ep) * (ep - 1.0) / ep
                                / (a2a_gbs * 1e9) + a2a_latency_s)
             else 2.0 * layers / pp * allreduce_s(input_len * hidden * 2.0, tp, tp_gbs, tp_hop_s) end
            as t_prefill_comm_s
    from fitting
),
prefilled as (
    select
        *,
        -- time to first token: tp replicas share the work, a prompt passes the pp stages in
        -- turn; ep: the prompt's own GPU runs attention and the always-active GEMMs, the
        -- experts are spread over the ep GPUs
        case when family = 'ep'
             then t_prefill_work_s
                  - 2.0 * (params_active_b - dense_params_b) * 1e9 * input_len * imbalance
                      / (peak_tflops * 1e12 * serve_eff * prefill_factor) * (1.0 - 1.0 / ep)
                  + t_prefill_comm_s
             else t_prefill_work_s / tp + t_prefill_comm_s * pp
                  + case when pp > 1 then (pp - 1) * (input_len * hidden * 2.0 / (pp_gbs * 1e9) + pp_hop_s)
                         else 0 end end as t_prefill_s,
        -- continuous batching spreads arriving prompts' work over the replica, while each GPU
        -- moves the activations of the prompts it serves (tp: all of them; ep: its own)
        t_prefill_work_s / replica_gpus as t_prefill_share_s
    from timed
),
stepped as (
    select
        *,
        -- with continuous batching each step also carries the prefill of arriving requests;
        -- disaggregated, the prompts run elsewhere and their KV cache arrives over the network
        case when disagg then 0
             else (b * t_prefill_share_s + b_attn * t_prefill_comm_s) / (output_len / accept_len) end
            as t_prefill_load_s,
        case when disagg then input_len * kv_bytes_per_token / (kv_link_gbs * 1e9) else 0 end as t_kv_transfer_s
    from prefilled
),
-- inlined, not held: offline_best reads a few of its columns again, which costs less than
-- materialising ~1.5M wide rows to read them twice (10M-estimate bench: 5.3 s -> 4.6 s)
sized_up as not materialized (
    select
        *,
        greatest(t_dense_compute_s, t_dense_memory_s) + greatest(t_expert_compute_s, t_expert_memory_s)
            + greatest(t_attn_compute_s, t_attn_exp_s, t_attn_memory_s) + t_draft_s + t_tp_pp_comm_s + t_a2a_s
            as t_decode_s
    from stepped
),
offline_best as (
    -- Offline without latency limits: serving_choice takes a layout's batch with the most
    -- throughput (the smallest such batch on a tie), and a calibration factor scales every
    -- batch's throughput alike, so only that batch is kept, with batch 1 (a token's time alone)
    select workload_id, platform_id, dtype, family, tp, pp, ep, disagg,
           arg_min(b_gpu, (-round(b * accept_len / (t_decode_s + t_prefill_load_s), 6), b_gpu)) as best_b_gpu
    from sized_up
    where scenario = 'Offline' and ttft_ms is null and tpot_ms is null
    group by workload_id, platform_id, dtype, family, tp, pp, ep, disagg
)
select
    workload_id, platform_id, gpu_id, dtype, run_dtype, family, tp, pp, ep, b, b_gpu, replica_gpus, replicas, n_gpus,
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
from sized_up
left join offline_best o using (workload_id, platform_id, dtype, family, tp, pp, ep, disagg)
where scenario <> 'Offline' or ttft_ms is not null or tpot_ms is not null or b_gpu = 1 or b_gpu = o.best_b_gpu;
