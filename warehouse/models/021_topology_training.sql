-- grain: one row per training workload x platform x dtype x n_gpus x tp x cp x pp x vp x recompute x sharding
-- topology_training: every training layout (training_layout) with its job's names, the layout's
-- name and what limits its step: the view to read when asking why a layout won or lost.
create or replace view topology_training as
select
    f.workload_id, f.platform_id, f.gpu_id, f.kind, f.dtype, l.n_gpus, l.nodes,
    l.tp, l.cp, l.pp, l.vp, l.dp, l.global_batch,
    recompute_policy(l.full_recompute) as recompute,
    sharding_policy(l.fsdp) as sharding,
    training_layout(l.tp, l.cp, l.pp, l.vp, l.dp, l.global_batch,
                    recompute_policy(l.full_recompute), sharding_policy(l.fsdp)) as layout,
    l.tp as scaleup_group, f.run_dtype, f.compute_eff,
    l.t_compute_s, l.t_memory_s, l.t_comm_s, l.t_bubble_s, l.t_step_s,
    training_bottleneck(l.t_compute_s, l.t_memory_s, l.t_parallel_comm_s, l.t_dp_exposed_s, l.t_bubble_s,
                        l.tp, l.cp, l.pp, l.n_gpus, f.scaleup_domain_gpus) as bottleneck,
    l.t_parallel_comm_s, l.t_dp_exposed_s, f.scaleup_domain_gpus,
    l.mem_per_gpu_gb, l.mem_capacity_gb, l.fits, l.tokens_per_s, l.mfu, l.total_tokens,
    f.kw_per_gpu
from training_layout l
join training_job f using (job_id);
