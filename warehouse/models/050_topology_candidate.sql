-- grain: one row per workload x platform x dtype x n_gpus x global_batch (training) x producers (role pipelines)
-- topology_candidate: every kind of workload in one shape, at the default efficiencies (before
-- calibration): per workload x platform x GPU count, the layouts that fit, or the refusal
-- (training: the best of each global batch already, training_option).
create or replace view topology_candidate as
select workload_id, platform_id, gpu_id, kind, dtype, n_gpus, nodes,
       training_layout(tp, cp, pp, vp, dp, global_batch, recompute, sharding) as layout, scaleup_group, run_dtype,
       tp, pp, dp, null::integer as batch, null::integer as producers, null::integer as consumers, global_batch,
       t_compute_s, t_memory_s, t_comm_s, t_step_s, bottleneck, mem_per_gpu_gb, mem_capacity_gb, fits,
       case when not fits then 'needs ' || round(mem_per_gpu_gb, 1) || ' GB per GPU, has '
                               || round(mem_capacity_gb, 1) end as refusal,
       tokens_per_s, total_tokens, 'tokens' as token_unit, kw_per_gpu
from training_option
union all by name
select workload_id, platform_id, gpu_id, kind, dtype, n_gpus, nodes, layout, scaleup_group, run_dtype,
       tp, pp, dp, batch, null::integer as producers, null::integer as consumers,
       t_compute_s, t_memory_s, t_comm_s, t_step_s, bottleneck, mem_per_gpu_gb, mem_capacity_gb, fits, refusal,
       tokens_per_s, total_tokens, token_unit, kw_per_gpu, systems
from topology_serving
union all by name
select workload_id, platform_id, gpu_id, kind, dtype, n_gpus, nodes, layout, scaleup_group, run_dtype,
       tp, null::integer as pp, null::integer as dp, null::integer as batch,
       producers, consumers,
       t_compute_s, null::double as t_memory_s, t_comm_s, null::double as t_step_s,
       bottleneck, mem_per_gpu_gb, mem_capacity_gb, fits,
       case when not batch_fits then consumers || ' drafters need a global batch of ' || consumers
                                     || ' sequences or more; the job trains on ' || global_batch_seqs::bigint
            when not fits then 'needs ' || round(mem_per_gpu_gb, 1) || ' GB per GPU, has '
                               || round(mem_capacity_gb, 1) end as refusal,
       tokens_per_s, total_tokens, coalesce(token_unit, 'tokens') as token_unit, kw_per_gpu
from topology_role
-- drafters on another GPU type: a row here is priced with one platform's quotes, so those stay
-- with `gpucalc whatif`, which prices each part
where placement <> 'two-platform';
