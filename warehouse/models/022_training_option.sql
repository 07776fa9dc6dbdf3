-- training_option: per training workload x platform x precision x GPU count x global batch,
-- the layout that finishes the job first, or, when none fits, the one needing the least
-- memory, to say why. Equal times go to the plainest layout: selective recompute before full
-- and ZeRO-1 before FSDP (they only buy memory), then the least parallelism: the smallest tp,
-- no context parallelism, the fewest pipeline stages, no interleaving. Ranked on numbers, and
-- without the layout's name (topology_candidate names the winners): the 10M-estimate bench
-- ranks about two million training layouts here, so the ranking carries only what varies with
-- the layout, and the winners alone are told their bottleneck (carrying each layout's whole
-- row and naming its bottleneck cost ~0.4 s more there). What is the same for every layout of
-- the group (the platform's, the job's) is taken once per group.
create or replace table training_option as
with ranked as (
    select
        workload_id, platform_id, dtype, n_gpus, global_batch,
        any_value(gpu_id) as gpu_id, any_value(kind) as kind, any_value(nodes) as nodes,
        any_value(run_dtype) as run_dtype, any_value(compute_eff) as compute_eff,
        any_value(mem_capacity_gb) as mem_capacity_gb, any_value(total_tokens) as total_tokens,
        any_value(kw_per_gpu) as kw_per_gpu, any_value(scaleup_domain_gpus) as scaleup_domain_gpus,
        arg_min(struct_pack(tp, cp, pp, vp, dp, recompute, sharding, t_compute_s, t_memory_s, t_comm_s, t_bubble_s,
                            t_step_s, t_parallel_comm_s, t_dp_exposed_s, mem_per_gpu_gb, fits, tokens_per_s, mfu),
                struct_pack(unfit := not fits,
                            cost := case when fits then total_tokens / tokens_per_s else mem_per_gpu_gb end,
                            full_recompute := recompute = 'full', fsdp := sharding = 'fsdp',
                            tp := tp, cp := cp, pp := pp, vp := vp)) as w
    from topology_training
    group by workload_id, platform_id, dtype, n_gpus, global_batch
)
select
    workload_id, platform_id, gpu_id, kind, dtype, n_gpus, nodes,
    w.tp, w.cp, w.pp, w.vp, w.dp, global_batch, w.recompute, w.sharding,
    w.tp as scaleup_group,
    run_dtype, compute_eff,
    w.t_compute_s, w.t_memory_s, w.t_comm_s, w.t_bubble_s, w.t_step_s,
    training_bottleneck(w.t_compute_s, w.t_memory_s, w.t_parallel_comm_s, w.t_dp_exposed_s, w.t_bubble_s,
                        w.tp, w.cp, w.pp, n_gpus, scaleup_domain_gpus) as bottleneck,
    w.mem_per_gpu_gb, mem_capacity_gb, w.fits, w.tokens_per_s, w.mfu,
    total_tokens, kw_per_gpu
from ranked;
