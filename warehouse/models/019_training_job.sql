-- grain: one row per training workload x platform x dtype (job_id)
-- training_job: a training workload on a platform in a precision, with everything about it that
-- does not depend on its layout, joined once here rather than once per layout (millions at
-- scale, docs/scale.md), and a number (`job_id`, in name order) by which the layouts are
-- enumerated, grouped and ranked: hashing three names per layout costs more than timing it.
create or replace table training_job as
select
    row_number() over (order by w.workload_id, p.platform_id, pw.dtype) as job_id,
    w.workload_id, p.platform_id, pw.dtype,
    w.kind, w.seq_len, w.hidden, w.layers, w.attn_layers, w.kv_dim_per_layer,
    w.params_total_b, w.params_active_b, w.global_batch_seqs, w.total_tokens as workload_tokens,
    k.max_batch,
    p.gpu_id, p.gpus_per_node, p.scaleup_domain_gpus, p.memory_usable_gb, p.mem_bw_tbps, p.mem_eff,
    p.node_power_kw / p.gpus_per_node as kw_per_gpu,
    p.scaleup_gbs, p.scaleup_eff, p.scaleup_hop_s, p.host_gbs, p.host_eff, p.host_hop_s,
    p.network_gbs, p.network_eff, p.network_hop_s,
    pw.run_dtype, pw.peak_tflops,
    -- a kind with no stage row runs at the plain GEMM efficiency
    pw.gemm_eff * coalesce(s.factor, 1.0) as compute_eff,
    train_flops_per_token(w.params_active_b, w.attn_layers, w.q_heads, w.head_dim, w.seq_len, w.kind)
        as model_flops_per_token,
    -- trainable share: MLPerf's LoRA adapts the attention projections at rank 16: 80 layers x
    -- 16 x (8192 + 10240 + 8192 + 8192) = 45 M of Llama-2-70B's 69 B parameters
    case when w.kind = 'finetune_lora' then 0.00065 else 1.0 end as trainable_share,
    -- frozen weights are read in the forward and the data-gradient pass only
    case when w.kind = 'finetune_lora' then 2.0 else 3.0 end as weight_passes,
    dtype_bytes(pw.run_dtype) as run_dtype_bytes,
    -- bytes per parameter a pass streams and a GPU holds (training_layout's time and memory)
    -- (LoRA's frozen base weights as stored: platform_workload.weight_dtype)
    case when w.kind = 'finetune_lora' then dtype_bytes(pw.weight_dtype) else 2.0 end as streamed_weight_bytes,
    case when w.kind = 'finetune_lora' then dtype_bytes(pw.weight_dtype) else 4.0 end as held_weight_bytes
from workload_spec w
cross join platform_spec p
join platform_workload pw using (platform_id, workload_id)
left join stage_efficiency_default s on s.stage = w.kind
left join (select workload_id, max(global_batch_seqs) as max_batch from convergence group by all) k
  using (workload_id)
where w.kind in ('pretrain', 'finetune_lora', 'finetune_full');
