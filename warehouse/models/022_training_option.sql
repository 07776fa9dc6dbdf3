-- training_option: per training workload x platform x precision x GPU count x global batch,
-- the layout that finishes the job first, or, when none fits, the one needing the least
-- memory, to say why. Equal times go to the plainest layout: selective recompute before full
-- and ZeRO-1 before FSDP (they only buy memory), then the least parallelism: the smallest tp,
-- no context parallelism, the fewest pipeline stages, no interleaving. Ranked on numbers, and
-- without the layout's name (topology_candidate names the winners): the 10M-estimate bench
-- ranks about two million training layouts here.
create or replace table training_option as
select unnest(arg_min(t, struct_pack(unfit := not fits,
                                     cost := case when fits then total_tokens / tokens_per_s else mem_per_gpu_gb end,
                                     full_recompute := recompute = 'full', fsdp := sharding = 'fsdp',
                                     tp := tp, cp := cp, pp := pp, vp := vp)))
from (select * exclude (layout) from topology_training) t
group by workload_id, platform_id, dtype, n_gpus, global_batch;
