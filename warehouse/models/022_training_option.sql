-- grain: one row per training workload x platform x dtype x n_gpus x global_batch
-- training_option: per training workload x platform x precision x GPU count x global batch,
-- the layout that finishes the job first, or, when none fits, the one needing the least
-- memory, to say why. Equal times go to the plainest layout: selective recompute before full
-- and ZeRO-1 before FSDP (they only buy memory), then the least parallelism: the smallest tp,
-- no context parallelism, the fewest pipeline stages, no interleaving. Ranked on numbers,
-- because grouping and joining millions of layouts by names is slower (docs/scale.md): the
-- ranking reads training_layout (the job by its number, the policies as booleans, only what
-- varies with the layout carried through the ranking), and the winners alone are given their
-- job's names, their policies' names and their bottleneck.
create or replace table training_option as
with ranked as (
    select
        job_id, n_gpus, global_batch,
        any_value(nodes) as nodes, any_value(mem_capacity_gb) as mem_capacity_gb,
        any_value(total_tokens) as total_tokens,
        arg_min(struct_pack(tp, cp, pp, vp, dp, full_recompute, fsdp, t_compute_s, t_memory_s, t_comm_s,
                            t_bubble_s, t_step_s, t_parallel_comm_s, t_dp_exposed_s, mem_per_gpu_gb, fits,
                            tokens_per_s, mfu),
                struct_pack(unfit := not fits,
                            cost := case when fits then total_tokens / tokens_per_s else mem_per_gpu_gb end,
                            full_recompute := full_recompute, fsdp := fsdp,
                            tp := tp, cp := cp, pp := pp, vp := vp)) as w
    from training_layout
    group by job_id, n_gpus, global_batch
)
select
    j.workload_id, j.platform_id, j.gpu_id, j.kind, j.dtype, r.n_gpus, r.nodes,
    w.tp, w.cp, w.pp, w.vp, w.dp, r.global_batch,
    recompute_policy(w.full_recompute) as recompute, sharding_policy(w.fsdp) as sharding,
    w.tp as scaleup_group,
    j.run_dtype, j.compute_eff,
    w.t_compute_s, w.t_memory_s, w.t_comm_s, w.t_bubble_s, w.t_step_s,
    training_bottleneck(w.t_compute_s, w.t_memory_s, w.t_parallel_comm_s, w.t_dp_exposed_s, w.t_bubble_s,
                        w.tp, w.cp, w.pp, r.n_gpus, j.scaleup_domain_gpus) as bottleneck,
    w.mem_per_gpu_gb, r.mem_capacity_gb, w.fits, w.tokens_per_s, w.mfu,
    r.total_tokens, j.kw_per_gpu
from ranked r
join training_job j using (job_id);
