-- grain: one row per workload x platform x dtype x n_gpus x global_batch (training) x producers (role pipelines)
-- topology_option: per workload x platform x precision x GPU count, the layout that finishes
-- the job first for each global batch (training) and role split (role pipelines), or, when
-- none fits, the one needing the least memory, to say why. Materialised once: the published
-- choice (topology_raw), the layouts matched to measured and requested cases (case_layout)
-- and the estimates' keys (calibration_choice) read it. Ties go to the first layout by name
-- (training layouts arrive ranked already: training_option).
create or replace table topology_option as
select unnest(arg_min(c, struct_pack(unfit := not fits,
                                     cost := case when fits then total_tokens / tokens_per_s else mem_per_gpu_gb end,
                                     layout := layout)))
from topology_candidate c
group by workload_id, platform_id, dtype, n_gpus, global_batch, producers;
