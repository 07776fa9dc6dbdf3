-- grain: a macro, one row per serving workload x platform x dtype x family x tp x pp x ep x disagg x case_index x b_gpu of the pass
-- serving_batch(pass): every batch of every serving layout (serving_layout) in the pass's scope
-- that fits in memory (and batch 1 of every layout, to say why when none does), timed per GPU
-- and op by op (each op its own roofline, then summed; modeling.md §2), with its memory fit, at
-- the documented efficiencies, beside the calibration factor serving_choice applies (a layout
-- appears once per factor row of its workload, platform and GPU count; without one, at factor
-- 1). serving_choice then applies the factor and the latency limits.
-- `pass` is 'uncalibrated' (topology_serving, calibration_rates) or 'calibrated'
-- (topology_serving_calibrated) and names the pass's scope and factor tables,
-- serving_scope_<pass> and serving_factor_<pass>: looked up by name, so the first pass runs
-- before the calibrated pass's tables exist. The macro is inlined where it is read, so each
-- pass times only its own scope, which costs less than storing millions of wide rows at scale
-- (docs/scale.md).
create or replace macro serving_batch(pass) as table
with factored_layout as (
    -- the factor joined per layout, before the batches multiply it: joined per batch it costs
    -- more (docs/scale.md)
    select l.*, coalesce(f.factor, 1.0) as factor, f.case_index, f.band_p90
    from serving_layout l
    left join query_table('serving_factor_' || pass) f
      on f.workload_id = l.workload_id and f.platform_id = l.platform_id and f.n_gpus = l.n_gpus
),
sized as (
    select
        f.*,
        g.b_gpu,
        -- sequences in the replica (ep: b_gpu on each of its GPUs)
        g.b_gpu * f.seqs_per_gpu_seq as b,
        g.b_gpu * f.kv_gb_per_seq as kv_gb
    from factored_layout f
    -- the pass's scope (the uncalibrated pass: only the platforms of measured and requested cases)
    join query_table('serving_scope_' || pass) using (workload_id, platform_id)
    cross join (values (1), (2), (4), (8), (16), (24), (32), (48), (64), (96), (128), (192), (256),
                       (384), (512), (768), (1024), (1536), (2048), (3072), (4096)) g(b_gpu)
),
fitting as (
    -- a batch that does not fit in memory is never chosen, so only batch 1 of such a layout is
    -- timed (to say why nothing fits); this drops most of the grid for the largest models
    select * from sized
    where b_gpu = 1 or weights_gb + kv_gb <= memory_usable_gb * assume('memory_headroom')
),
stepped as (
    -- each op at this batch (serving_layout: its time per sequence, and its fixed latency)
    select
        *,
        b_gpu * t_dense_compute_s_per_seq as t_dense_compute_s,
        b_gpu * t_expert_compute_s_per_seq as t_expert_compute_s,
        -- the experts a step touches: each is hit with probability 1 - (1 - k/E)^tokens
        t_expert_weights_s * experts_touched_fraction(experts, experts_active, b_gpu * step_tokens_per_seq / pp)
            as t_expert_memory_s,
        b_gpu * t_attn_compute_s_per_seq as t_attn_compute_s,
        b_gpu * t_attn_exp_s_per_seq as t_attn_exp_s,
        b_gpu * t_attn_memory_s_per_seq as t_attn_memory_s,
        greatest(b_gpu * t_draft_compute_s_per_seq, t_draft_memory_s) as t_draft_s,
        b_gpu * t_tp_pp_comm_s_per_seq + t_tp_pp_comm_s_fixed as t_tp_pp_comm_s,
        b_gpu * t_a2a_s_per_seq + t_a2a_s_fixed as t_a2a_s,
        b_gpu * t_prefill_load_s_per_seq as t_prefill_load_s
    from fitting
),
decoded as (
    select
        *,
        greatest(t_dense_compute_s, t_dense_memory_s) + greatest(t_expert_compute_s, t_expert_memory_s)
            + greatest(t_attn_compute_s, t_attn_exp_s, t_attn_memory_s) + t_draft_s + t_tp_pp_comm_s + t_a2a_s
            as t_decode_s,
        -- Server and Interactive arrivals are Poisson: to keep the 99th percentile of requests in
        -- flight within b, the mean must stay below it (requests in flight are Poisson with mean
        -- m: m + z sqrt(m) = b, modeling notes §3); the share of b a replica sustains
        case when scenario = 'Offline' then 1.0
             else pow((sqrt(pow(assume('poisson_z'), 2) + 4.0 * b) - assume('poisson_z')) / 2.0, 2) / b end
            as occupancy
    from stepped
),
arriving as (
    -- prompts arriving per step at one scheduler (a tp replica, or an ep GPU's own sequences):
    -- its mean in flight turns over once every output_len / accept_len steps (Little's law)
    select
        *,
        occupancy * b_gpu * accept_len / output_len as arrivals_per_step,
        -- a step carries at most prefill_chunk_tokens of prompt (chunked prefill)
        assume('prefill_chunk_tokens') / input_len as chunk_prompts,
        -- a prompt holds its scheduler for its prefill and the decoding of the steps its chunks
        -- ride in; disaggregated, prompts queue on prefill GPUs of their own
        case when disagg then 0
             else t_prefill_one_s + input_len / assume('prefill_chunk_tokens') * t_decode_s end
            as t_prompt_service_s,
        -- E[1/n] over requests of n steps, for lengths (1 - cv) mean + cv mean Exp(1) of at least
        -- one step (docs/model.md: latency at the 99th percentile)
        case when coalesce(output_len_cv, 0) > 0
             then ln(1.0 + output_len_cv * output_len / accept_len
                           / greatest(1.0, (1.0 - output_len_cv) * output_len / accept_len))
                  / (output_len_cv * output_len / accept_len)
             else accept_len / output_len end as inverse_steps
    from decoded
),
queued as (
    select
        *,
        -- TPOT is a request's mean step (MLPerf loadgen), so the prompts interrupting it are
        -- Poisson over its own steps: z standard deviations above the mean, variance
        -- arrivals x E[1/n], at most a chunk per step and never below the step at b
        greatest(t_decode_s + t_prefill_load_s,
                 t_decode_s + least(arrivals_per_step
                                    + assume('poisson_z') * sqrt(arrivals_per_step * inverse_steps),
                                    chunk_prompts) * t_prefill_one_s) as t_step_p99_s,
        -- the load of the prompt queue: arrivals per second times each prompt's service time
        arrivals_per_step * t_prompt_service_s / (t_decode_s + arrivals_per_step * t_prefill_one_s) as prefill_rho
    from arriving
),
waited as (
    -- a prompt's wait behind those queued before it (M/D/1), z standard deviations above its
    -- mean: mean rho D / 2(1 - rho) (Pollaczek-Khinchine), second moment
    -- 2 E[W]^2 + rho D^2 / 3(1 - rho) (Takacs); no finite wait once rho reaches 1
    select
        *,
        case when prefill_rho = 0 then 0.0
             when prefill_rho < 1
             then prefill_rho * t_prompt_service_s / (2.0 * (1.0 - prefill_rho))
                  + assume('poisson_z')
                    * sqrt(pow(prefill_rho * t_prompt_service_s / (2.0 * (1.0 - prefill_rho)), 2)
                           + prefill_rho * pow(t_prompt_service_s, 2) / (3.0 * (1.0 - prefill_rho)))
             else 'infinity'::double end as t_queue_p99_s
    from queued
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
    -- the limits are 99th percentiles over requests (MLPerf loadgen); an Offline run has no
    -- arrivals to queue, so its latencies are the mean step and the prompt's own prefill
    case when scenario = 'Offline' then t_decode_s + t_prefill_load_s else t_step_p99_s end as t_step_p99_s,
    -- first token: the step running when the prompt arrives, the wait for a prefill slot, its
    -- prefill and the decoding of the steps its chunks ride in
    case when scenario = 'Offline' then t_prefill_s + t_decode_s
         else t_step_p99_s + t_queue_p99_s + t_prefill_s
              + ceil(input_len / assume('prefill_chunk_tokens')) * t_decode_s end as t_ttft_p99_s,
    weights_gb + kv_gb as mem_per_gpu_gb,
    weights_gb + kv_gb <= memory_usable_gb * assume('memory_headroom') as fits_memory,
    occupancy,
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
from waited;
