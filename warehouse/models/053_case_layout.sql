-- grain: one row per case of case_platform (source x source_ref x source_row, or case_index) a layout matches
-- case_layout: the modelled layout for every measured result (benchmark_result) and every
-- case `gpucalc predict` asks about (model_request), matched by one rule so a prediction is
-- made exactly as the calibration point of the same measurement:
--   platform: the case's platform (025_case_platform.sql);
--   serving:  the best per-GPU rate of a layout that fits in the case's GPUs (systems full
--             of replicas; a result on 16 GPUs is two 8-GPU systems, compared with one: the
--             deployment it measured, whose calibration k systems side by side carry);
--   training: the case's GPU count, its global batch where given, the layout that finishes
--             first; role pipelines: the case's GPU count and role split ('P+C' or 'shared').
create or replace table case_layout as
with matched as (
    select
        h.source, h.source_ref, h.source_row, h.case_index, h.workload_id, h.gpu_id, h.gpu_count, h.kind,
        h.platform_id, o.n_gpus, o.layout, o.run_dtype, o.bottleneck, o.fits, o.refusal, o.global_batch,
        o.tokens_per_s, o.total_tokens,
        row_number() over (
            partition by h.source, h.source_ref, h.source_row, h.case_index
            order by o.fits desc,
                     (o.global_batch is not distinct from h.global_batch_size) desc,
                     case_layout_cost(o.fits, h.kind, o.tokens_per_s, o.n_gpus, o.total_tokens),
                     o.layout) as rank
    from case_platform h
    join topology_option o
      on o.workload_id = h.workload_id and o.platform_id = h.platform_id and o.dtype = h.model_dtype
     and (   (h.kind = 'serving' and o.systems = 1
              and serving_case_fits(o.n_gpus, o.scaleup_group, h.gpu_count, h.gpus_per_node))
          or (h.kind = 'role_pipeline' and o.n_gpus = h.gpu_count
              and (h.role_split is null or h.role_split = o.producers || '+' || o.consumers
                   -- target and drafter time-sharing every GPU (041_topology_role.sql)
                   or (h.role_split = 'shared' and o.producers = o.n_gpus and o.consumers = o.n_gpus)))
          or (h.kind not in ('serving', 'role_pipeline') and o.n_gpus = h.gpu_count))
)
select * exclude (rank) from matched where rank = 1;
