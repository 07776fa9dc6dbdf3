-- grain: one row per job_id x n_gpus x tp x cp x pp x vp x full_recompute x fsdp (dp and global_batch follow)
-- training_layout: pretraining and full or LoRA fine-tuning (training_job) on every GPU count,
-- as every tensor x context x pipeline (x interleaved stages) x data-parallel split, recompute
-- policy (full_recompute) and data-parallel sharding (fsdp: FSDP/ZeRO-3, else ZeRO-1), with
-- per-step compute, memory and communication time. A step is one global batch of sequences; a
-- micro-batch is one sequence. Numbers only, keyed by job_id: training_option ranks these rows
-- (millions at scale, docs/scale.md) and topology_training names them.
--
-- The global batch: a job with MLPerf reference convergence points (`convergence`) may grow
-- its batch with data parallelism, as submitters do (LoRA: 8 sequences on one node, 128 on
-- 1,024 GPUs), but needs more samples to converge at a larger batch (interpolated log-log
-- between the reference points, never beyond the largest). Other jobs keep their batch.
create or replace view training_layout as
with layouts as (
    select
        f.job_id, o.n, tp.tp, cp.cp, pp.pp, vp.vp, o.n // (tp.tp * cp.cp * pp.pp) as dp,
        f.global_batch_seqs, f.max_batch
    from training_job f
    join gpu_count_option o on o.platform_id = f.platform_id
    cross join (values (1), (2), (4), (8)) tp(tp)
    cross join (values (1), (2)) cp(cp)
    cross join (values (1), (2), (4), (8), (16)) pp(pp)
    cross join (values (1), (2), (4), (8)) vp(vp)
    where tp.tp <= least(f.gpus_per_node, o.n)
      and (cp.cp = 1 or f.seq_len >= 4096)            -- context parallelism pays on long sequences
      and pp.pp <= f.layers
      and (vp.vp = 1 or (pp.pp > 1 and f.layers % (pp.pp * vp.vp) = 0))
      and o.n % (tp.tp * cp.cp * pp.pp) = 0
),
-- held, so the timing below runs on every core: a pipeline that starts from the small catalog
-- tables runs on one (docs/scale.md)
batched as materialized (
    select
        job_id, n, tp, cp, pp, vp, dp,
        -- the global batch this split runs: at least one sequence per data-parallel replica
        case when max_batch is null then global_batch_seqs
             else dp * ceil(global_batch_seqs / dp) end as global_batch
    from layouts
    where (max_batch is null and dp <= global_batch_seqs)
       or (max_batch is not null and dp * ceil(global_batch_seqs / dp) <= max_batch)
),
sized as (
    select
        l.*,
        f.seq_len, f.hidden, f.layers, f.attn_layers, f.kv_dim_per_layer, f.params_total_b, f.params_active_b,
        f.gpus_per_node, f.scaleup_domain_gpus,
        f.memory_usable_gb, f.mem_bw_tbps, f.mem_eff, f.scaleup_gbs, f.scaleup_eff, f.scaleup_hop_s,
        f.host_gbs, f.host_eff, f.host_hop_s, f.network_gbs, f.network_eff, f.network_hop_s, f.peak_tflops,
        f.compute_eff, f.model_flops_per_token, f.trainable_share, f.weight_passes, f.streamed_weight_bytes,
        f.held_weight_bytes, f.run_dtype_bytes,
        -- the job: the reference samples to converge at this batch, else the workload's tokens
        coalesce(c.samples_to_converge * f.seq_len, f.workload_tokens) as total_tokens,
        -- tensor parallelism inside one system: NVLink in the scale-up domain, PCIe beyond it;
        -- context, pipeline and data parallelism leave the domain over the network
        case when l.tp <= f.scaleup_domain_gpus then f.scaleup_gbs * f.scaleup_eff else f.host_gbs * f.host_eff end
            as tp_gbs,
        case when l.tp <= f.scaleup_domain_gpus then f.scaleup_hop_s else f.host_hop_s end as tp_hop_s,
        case when l.tp * l.cp <= f.scaleup_domain_gpus then f.scaleup_gbs * f.scaleup_eff
             else f.network_gbs * f.network_eff end as cp_gbs,
        case when l.tp * l.cp * l.pp <= f.scaleup_domain_gpus then f.scaleup_gbs * f.scaleup_eff
             else f.network_gbs * f.network_eff end as pp_gbs,
        case when l.n <= f.scaleup_domain_gpus then f.scaleup_gbs * f.scaleup_eff
             else least(f.network_gbs * f.network_eff, f.scaleup_gbs * f.scaleup_eff) end as dp_gbs,
        case when l.n <= f.scaleup_domain_gpus then f.scaleup_hop_s else f.network_hop_s end as dp_hop_s,
        l.global_batch / l.dp as micro_batches,
        l.global_batch * f.seq_len as tokens_per_step
    from batched l
    join training_job f using (job_id)
    left join (select j.job_id, c.global_batch, c.samples_to_converge
               from convergence_curve c join training_job j using (workload_id)) c
      on c.job_id = l.job_id and c.global_batch = l.global_batch
),
timed as (
    select
        *,
        tokens_per_step * model_flops_per_token / (n * peak_tflops * 1e12 * compute_eff) as t_model_compute_s,
        -- full recompute runs the forward pass again: 2 FLOPs per active parameter per token
        tokens_per_step * 2.0 * params_active_b * 1e9 / (n * peak_tflops * 1e12 * compute_eff) as t_recompute_s,
        -- weights streamed per pass and micro-batch, plus the optimizer update
        (weight_passes * micro_batches * params_total_b * 1e9
             * streamed_weight_bytes / (tp * pp)
         + 16.0 * trainable_share * params_total_b * 1e9 / (tp * pp * dp * cp))
            / (mem_bw_tbps * 1e12 * mem_eff) as t_memory_s,
        -- Megatron TP: 2 all-reduces forward + 2 backward per layer per micro-batch, over this
        -- rank's share of the sequence
        4.0 * (layers / pp) * micro_batches
            * allreduce_s(seq_len / cp * hidden * 2.0, tp, tp_gbs, tp_hop_s) as t_tp_s,
        -- context parallel (ring attention): each rank passes its keys and values round the ring,
        -- forward and twice backward
        case when cp > 1 then 3.0 * (attn_layers / pp) * micro_batches * (cp - 1) * seq_len / cp
                              * kv_dim_per_layer * 2.0 / (cp_gbs * 1e9) else 0 end as t_cp_s,
        -- pipeline: activations cross each stage boundary forward and backward, once per
        -- interleaved chunk
        case when pp > 1 then 2.0 * vp * micro_batches * seq_len / cp * hidden * 2.0 / (pp_gbs * 1e9) else 0 end
            as t_pp_s,
        -- data parallel over the dp x cp replicas of each weight. ZeRO-1: all-reduce of the
        -- trainable gradients (bf16). FSDP: all-gather the weights for forward and again for
        -- backward, reduce-scatter the gradients
        allreduce_s(trainable_share * params_total_b * 1e9 * 2.0 / (tp * pp), dp * cp, dp_gbs, dp_hop_s)
            as t_dp_zero1_s,
        2.0 * allgather_s(params_total_b * 1e9 * run_dtype_bytes / (tp * pp), dp * cp, dp_gbs)
            + allgather_s(trainable_share * params_total_b * 1e9 * 2.0 / (tp * pp), dp * cp, dp_gbs)
            as t_dp_fsdp_s,
        -- interleaving vp model chunks per stage divides the bubble by vp (Narayanan et al.)
        case when pp <= 1 then 0.0 else (pp - 1.0) / (vp * micro_batches + pp - 1.0) end as bubble,
        -- memory per GPU. ZeRO-1: weights (+ fp32 master/grads when training them all) whole, the
        -- 12 B of optimizer state per trained parameter sharded over dp x cp. FSDP: everything
        -- sharded, plus two layers' weights gathered at a time. Activations of this rank's share
        -- of the sequence, for the micro-batches in flight.
        params_total_b * 1e9 / (tp * pp) * held_weight_bytes / 1e9 as weights_gb,
        2.0 * params_total_b * 1e9 / layers * run_dtype_bytes / tp / 1e9 as gathered_gb,
        12.0 * trainable_share * params_total_b * 1e9 / (tp * pp * dp * cp) / 1e9 as optimizer_gb,
        34.0 * seq_len / cp * hidden * (layers / pp) / tp * least(pp, micro_batches) / 1e9 as act_selective_gb,
        2.0 * seq_len / cp * hidden * (layers / pp) * least(pp, micro_batches) / 1e9 as act_full_gb,
        memory_usable_gb * assume('memory_headroom') as capacity_gb
    from sized
),
variants as (
    -- recompute policy and sharding: selective recompute with ZeRO-1 is the fastest when it
    -- fits; full recompute (more compute) and FSDP (more communication) only buy memory, so a
    -- slower variant is kept only when every faster one it could replace does not fit
    select
        t.*, v.full_recompute, v.fsdp,
        t.t_model_compute_s + case when v.full_recompute then t.t_recompute_s else 0 end as t_compute_s,
        case when v.fsdp then t.t_dp_fsdp_s else t.t_dp_zero1_s end as t_dp_s,
        case when v.fsdp then t.weights_gb / (t.dp * t.cp) + t.gathered_gb else t.weights_gb end
            + t.optimizer_gb
            + case when v.full_recompute then t.act_full_gb else t.act_selective_gb end as mem_per_gpu_gb
    from timed t
    cross join (values (false, false), (true, false), (false, true), (true, true)) v(full_recompute, fsdp)
    where (not v.full_recompute and not v.fsdp)
       or (t.weights_gb + t.optimizer_gb + t.act_selective_gb > t.capacity_gb
           and (v.full_recompute and not v.fsdp
                or not v.full_recompute and v.fsdp
                or (t.weights_gb + t.optimizer_gb + t.act_full_gb > t.capacity_gb
                    and t.weights_gb / (t.dp * t.cp) + t.gathered_gb + t.optimizer_gb + t.act_selective_gb
                        > t.capacity_gb)))
),
stepped as (
    select
        *,
        -- tensor- and context-parallel collectives overlap the GEMMs they feed (Megatron/NeMo
        -- TP communication overlap, ring attention), so the slowest of the three sets the pace
        greatest(t_compute_s, t_memory_s, t_tp_s + t_cp_s) as t_core_s,
        -- half of the backward pass can hide the gradient all-reduce
        greatest(0.0, t_dp_s - 0.5 * t_compute_s) as t_dp_exposed_s,
        t_tp_s + t_cp_s + t_pp_s as t_parallel_comm_s,
        -- a step's fixed cost (optimizer, synchronisation, launches) whatever its tokens per GPU
        assume('train_step_fixed_s') as t_fixed_s
    from variants
),
paced as (
    select *, t_core_s / (1 - bubble) + t_pp_s + t_dp_exposed_s + t_fixed_s as t_step_s
    from stepped
)
select
    job_id, n as n_gpus, cast(ceil(n / gpus_per_node) as integer) as nodes,
    tp, cp, pp, vp, dp, global_batch, full_recompute, fsdp,
    t_compute_s, t_memory_s,
    -- the fixed cost is counted with the communication
    greatest(0.0, t_tp_s + t_cp_s - greatest(t_compute_s, t_memory_s)) + t_pp_s + t_dp_exposed_s + t_fixed_s
        as t_comm_s,
    t_core_s / (1 - bubble) - t_core_s as t_bubble_s,
    t_step_s,
    -- what the bottleneck is judged on (training_bottleneck, for the layouts that are named)
    t_parallel_comm_s, t_dp_exposed_s,
    mem_per_gpu_gb,
    capacity_gb as mem_capacity_gb,
    mem_per_gpu_gb <= capacity_gb as fits,
    tokens_per_step / t_step_s as tokens_per_s,
    tokens_per_step * model_flops_per_token / t_step_s / (n * peak_tflops * 1e12) as mfu,
    total_tokens
from paced;
