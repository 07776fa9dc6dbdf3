-- case_layout: the modelled layout for every measured result (benchmark_result) and every
-- case `gpucalc predict` asks about (model_request), matched by one rule so a prediction is
-- made exactly as the calibration point of the same measurement:
--   platform: of the platforms of the case's GPU, the smallest node that holds the case's
--             GPUs per node (else the largest node), then the largest scale-up domain;
--   serving:  the best per-GPU rate of a layout that fits in the case's GPUs (systems full
--             of replicas; a result on 16 GPUs is two 8-GPU systems);
--   training: the case's GPU count, its global batch where given, the layout that finishes
--             first; role pipelines: the case's GPU count and role split ('P+C' or 'shared').
create or replace table case_layout as
with cases as (
    select b.source, b.source_ref, b.source_row, null::integer as case_index, b.workload_id, b.gpu as gpu_id,
           b.gpu_count, coalesce(b.nodes, 1) as nodes, b.precision, b.role_split, b.global_batch_size
    from benchmark_result b
    where b.value > 0
    union all by name
    select null::varchar as source, null::varchar as source_ref, null::bigint as source_row, r.case_index,
           r.workload_id, r.gpu_id, r.gpu_count, coalesce(r.nodes, 1) as nodes, r.precision, r.role_split,
           r.global_batch_size
    from model_request r
    where r.case_index is not null
),
typed as (
    select c.*, w.kind, normalized_precision(c.precision, w.dtype) as model_dtype,
           c.gpu_count // greatest(c.nodes, 1) as gpus_per_node_case
    from cases c
    join workload w using (workload_id)
),
hosted as (
    select c.*, p.platform_id, p.gpus_per_node
    from typed c
    join (select *, row_number() over (partition by t.source, t.source_ref, t.source_row, t.case_index
                                       order by (p.gpus_per_node >= t.gpus_per_node_case) desc,
                                                case when p.gpus_per_node >= t.gpus_per_node_case
                                                     then p.gpus_per_node else -p.gpus_per_node end,
                                                p.scaleup_domain_gpus desc, p.platform_id) as rank
          from typed t join platform p on p.gpu_id = t.gpu_id) p
      on p.source is not distinct from c.source and p.source_ref is not distinct from c.source_ref
     and p.source_row is not distinct from c.source_row and p.case_index is not distinct from c.case_index
     and p.rank = 1
),
matched as (
    select
        h.source, h.source_ref, h.source_row, h.case_index, h.workload_id, h.gpu_id, h.gpu_count, h.kind,
        h.platform_id, o.n_gpus, o.layout, o.run_dtype, o.bottleneck, o.fits, o.refusal, o.global_batch,
        o.tokens_per_s, o.total_tokens,
        row_number() over (
            partition by h.source, h.source_ref, h.source_row, h.case_index
            order by o.fits desc,
                     (o.global_batch is not distinct from h.global_batch_size) desc,
                     case when not o.fits then 0
                          when h.kind = 'serving' then -o.tokens_per_s / o.n_gpus
                          else o.total_tokens / o.tokens_per_s end,
                     o.layout) as rank
    from hosted h
    join topology_option o
      on o.workload_id = h.workload_id and o.platform_id = h.platform_id and o.dtype = h.model_dtype
     and (   (h.kind = 'serving' and o.n_gpus <= greatest(h.gpu_count, h.gpus_per_node)
              and o.scaleup_group <= h.gpu_count)
          or (h.kind = 'role_pipeline' and o.n_gpus = h.gpu_count
              and (h.role_split is null or h.role_split = o.producers || '+' || o.consumers
                   -- target and drafter time-sharing every GPU (041_topology_role.sql)
                   or (h.role_split = 'shared' and o.producers = o.n_gpus and o.consumers = o.n_gpus)))
          or (h.kind not in ('serving', 'role_pipeline') and o.n_gpus = h.gpu_count))
)
select * exclude (rank) from matched where rank = 1;
