-- Training (pretraining, full and LoRA fine-tuning): every GPU count x tensor/pipeline/data
-- split x recompute policy x data-parallel sharding (ZeRO-1, or FSDP/ZeRO-3), with per-step
-- compute, memory and communication time.
-- Step = global_batch_seqs sequences of seq_len tokens; micro-batch of one sequence.

create or replace view topology_training as
with layouts as (
    select
        w.workload_id, p.platform_id, o.n, tp.tp, pp.pp, o.n // (tp.tp * pp.pp) as dp, r.recompute,
        sh.sharding
    from workload_spec w
    cross join platform_spec p
    join gpu_count_option o on o.platform_id = p.platform_id
    cross join (values (1), (2), (4), (8)) tp(tp)
    cross join (values (1), (2), (4), (8), (16)) pp(pp)
    cross join (values ('selective'), ('full')) r(recompute)
    cross join (values ('zero1'), ('fsdp')) sh(sharding)
    where w.kind in ('pretrain', 'finetune_lora', 'finetune_full')
      and tp.tp <= least(p.scaleup_domain_gpus, o.n)
      and pp.pp <= w.layers
      and o.n % (tp.tp * pp.pp) = 0
      and o.n // (tp.tp * pp.pp) <= w.global_batch_seqs
),
sized as (
    select
        l.*,
        pw.dtype,
        w.kind, w.seq_len, w.global_batch_seqs, w.total_tokens, w.hidden, w.layers, w.attn_layers,
        w.params_total_b, w.params_active_b,
        p.gpu_id, p.gpus_per_node, p.scaleup_domain_gpus, p.memory_usable_gb, p.mem_bw_tbps, p.mem_eff,
        p.node_power_kw,
        pw.run_dtype, pw.peak_tflops,
        pw.gemm_eff * coalesce(s.factor, 0.6) as compute_eff,
        -- collectives ride NVLink/IF inside the scale-up domain, else the NIC
        p.scaleup_gbs * p.link_eff as tp_gbs,
        case when l.n <= p.scaleup_domain_gpus then p.scaleup_gbs * p.link_eff
             else least(p.network_gbs * p.link_eff, p.scaleup_gbs * p.link_eff) end as dp_gbs,
        case when l.tp * l.pp <= p.scaleup_domain_gpus then p.scaleup_gbs * p.link_eff
             else p.network_gbs * p.link_eff end as pp_gbs,
        w.global_batch_seqs / l.dp as micro_batches,
        w.global_batch_seqs * w.seq_len as tokens_per_step,
        train_flops_per_token(w.params_active_b, w.attn_layers, w.q_heads, w.head_dim, w.seq_len, w.kind)
            + case when l.recompute = 'full' then 2.0 * w.params_active_b * 1e9 else 0 end
            as hw_flops_per_token,
        train_flops_per_token(w.params_active_b, w.attn_layers, w.q_heads, w.head_dim, w.seq_len, w.kind)
            as model_flops_per_token,
        -- trainable share: LoRA adapters are ~0.5% of the weights (rank 16 on attention + MLP)
        case when w.kind = 'finetune_lora' then 0.005 else 1.0 end as trainable_share
    from layouts l
    join workload_spec w using (workload_id)
    join platform_spec p using (platform_id)
    join platform_workload pw using (platform_id, workload_id)
    left join stage_efficiency_default s on s.stage = w.kind
),
timed as (
    select
        *,
        tokens_per_step * hw_flops_per_token / (n * peak_tflops * 1e12 * compute_eff) as t_compute_s,
        -- weights streamed three times per micro-batch (fwd, dgrad, wgrad) + optimizer update
        (3.0 * micro_batches * params_total_b * 1e9 * 2.0 / (tp * pp)
         + 16.0 * trainable_share * params_total_b * 1e9 / (tp * pp * dp))
            / (mem_bw_tbps * 1e12 * mem_eff) as t_memory_s,
        -- Megatron TP: 2 all-reduces forward + 2 backward per layer per micro-batch
        4.0 * (layers / pp) * micro_batches
            * allreduce_s(seq_len * hidden * 2.0, tp, tp_gbs, assume('collective_latency_s')) as t_tp_s,
        -- pipeline: activations cross each stage boundary forward and backward
        case when pp > 1 then 2.0 * micro_batches * seq_len * hidden * 2.0 / (pp_gbs * 1e9) else 0 end
            as t_pp_s,
        -- data parallel. ZeRO-1: all-reduce of the trainable gradients (bf16). FSDP: all-gather
        -- the weights for forward and again for backward, reduce-scatter the gradients
        case when sharding = 'fsdp'
             then 2.0 * allgather_s(params_total_b * 1e9 * dtype_bytes(run_dtype) / (tp * pp), dp, dp_gbs)
                  + allgather_s(trainable_share * params_total_b * 1e9 * 2.0 / (tp * pp), dp, dp_gbs)
             else allreduce_s(trainable_share * params_total_b * 1e9 * 2.0 / (tp * pp), dp, dp_gbs,
                              assume('network_latency_s')) end as t_dp_s,
        pipeline_bubble(pp, micro_batches) as bubble,
        -- memory per GPU. ZeRO-1: weights (+ bf16 grads when training them all) whole, the 12 B
        -- of optimizer state per trained parameter sharded over dp. FSDP: everything sharded
        -- over dp, plus two layers' weights gathered at a time.
        (params_total_b * 1e9 / (tp * pp)
            * (case when kind = 'finetune_lora' then dtype_bytes(run_dtype) else 4.0 end)
            / (case when sharding = 'fsdp' then dp else 1 end)
         + case when sharding = 'fsdp' then 2.0 * params_total_b * 1e9 / layers * 2.0 / tp else 0 end
         + 12.0 * trainable_share * params_total_b * 1e9 / (tp * pp * dp)
         + case when recompute = 'full' then 2.0 * seq_len * hidden * (layers / pp)
                else 34.0 * seq_len * hidden * (layers / pp) / tp end
           * least(pp, micro_batches)) / 1e9 as mem_per_gpu_gb
    from sized
),
stepped as (
    select
        *,
        greatest(t_compute_s, t_memory_s) + t_tp_s as t_core_s,
        -- half of the backward pass can hide the gradient all-reduce
        greatest(0.0, t_dp_s - 0.5 * t_compute_s) as t_dp_exposed_s
    from timed
)
select
    workload_id, platform_id, gpu_id, kind, dtype, n as n_gpus,
    cast(ceil(n / gpus_per_node) as integer) as nodes,
    tp, pp, dp, recompute, sharding,
    'tp' || tp || ' pp' || pp || ' dp' || dp || ' ' || recompute || ' recompute'
        || case when sharding = 'fsdp' then ' fsdp' else '' end as layout,
    tp as scaleup_group,
    run_dtype, compute_eff,
    t_compute_s, t_memory_s, t_tp_s + t_pp_s + t_dp_exposed_s as t_comm_s,
    t_core_s / (1 - bubble) - t_core_s as t_bubble_s,
    t_core_s / (1 - bubble) + t_pp_s + t_dp_exposed_s as t_step_s,
    case greatest(t_compute_s, t_memory_s, t_tp_s + t_pp_s, t_dp_exposed_s, t_core_s * bubble / (1 - bubble))
        when t_compute_s then 'compute'
        when t_memory_s then 'memory bandwidth'
        when t_tp_s + t_pp_s then 'scale-up communication'
        when t_dp_exposed_s then (case when n <= scaleup_domain_gpus then 'scale-up communication'
                                       else 'network communication' end)
        else 'pipeline bubble' end as bottleneck,
    mem_per_gpu_gb,
    memory_usable_gb * assume('memory_headroom') as mem_capacity_gb,
    mem_per_gpu_gb <= memory_usable_gb * assume('memory_headroom') as fits,
    tokens_per_step / (t_core_s / (1 - bubble) + t_pp_s + t_dp_exposed_s) as tokens_per_s,
    tokens_per_step * model_flops_per_token
        / (t_core_s / (1 - bubble) + t_pp_s + t_dp_exposed_s) / (n * peak_tflops * 1e12) as mfu,
    total_tokens,
    node_power_kw / gpus_per_node as kw_per_gpu
from stepped;
