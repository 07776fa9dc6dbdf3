-- grain: one row per workload x platform x dtype x n_gpus
-- topology_raw: per workload x platform x precision x GPU count, the layout that finishes the
-- job first (for most jobs the fastest; a training job whose batch grows with data
-- parallelism also needs more samples to converge), or, when none fits, the refusal. A view:
-- topology_estimate is its one reader in the rebuild (training and role pipelines; serving is
-- published from topology_serving_calibrated), and storing its wide rows costs more than
-- ranking them where they are read (docs/scale.md).
create or replace view topology_raw as
select unnest(arg_min(o, struct_pack(unfit := not fits,
                                     cost := case when fits then total_tokens / tokens_per_s else mem_per_gpu_gb end,
                                     layout := layout)))
from topology_option o
group by workload_id, platform_id, dtype, n_gpus;
