-- grain: one row per case: benchmark_result (source x source_ref x source_row) with value > 0, or case_index
-- case_platform: every measured result (benchmark_result) and every case `gpucalc predict`
-- asks about (model_request) on the platform its layout is modelled on: of the platforms of the
-- case's GPU, the smallest node that holds the case's GPUs per node (else the largest node),
-- then the largest scale-up domain. case_layout matches each to its layout; the first serving
-- pass times only these platforms (029_serving_scope.sql).
create or replace table case_platform as
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
)
select * from hosted;
