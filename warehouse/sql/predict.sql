-- Predict each requested case (table `prediction_case`): the best layout the models found
-- for that workload, GPU, GPU count and precision, times the calibration factor.
-- Serving results are per system: the best per-GPU rate of any replica layout that fits in
-- the case's GPUs, times its GPU count. Training and role pipelines use the exact count.
with cases as (
    select c.*, w.kind, normalized_precision(c.precision, w.dtype) as model_dtype,
           c.gpu_count // greatest(c.nodes, 1) as gpus_per_node_case
    from prediction_case c
    join workload w using (workload_id)
),
platform_pick as (
    select c.case_index, p.platform_id, p.gpus_per_node,
           row_number() over (partition by c.case_index
                              order by (p.gpus_per_node >= c.gpus_per_node_case) desc,
                                       p.scaleup_domain_gpus desc, p.platform_id) as rank
    from cases c join platform p on p.gpu_id = c.gpu_id
),
candidates as (
    select c.case_index, t.platform_id, t.layout, t.bottleneck, t.run_dtype,
           t.tokens_per_s / t.n_gpus as per_gpu,
           row_number() over (partition by c.case_index order by t.tokens_per_s / t.n_gpus desc) as rank
    from cases c
    join platform_pick pp on pp.case_index = c.case_index and pp.rank = 1
    join topology_candidate t
      on t.workload_id = c.workload_id and t.platform_id = pp.platform_id and t.dtype = c.model_dtype and t.fits
     and (   (c.kind = 'serving' and t.n_gpus <= greatest(c.gpu_count, pp.gpus_per_node)
              and t.scaleup_group <= c.gpu_count)
          or (c.kind <> 'serving' and t.n_gpus = c.gpu_count))
),
refusal as (
    select c.case_index, any_value(t.refusal) as refusal
    from cases c
    join platform_pick pp on pp.case_index = c.case_index and pp.rank = 1
    join topology_candidate t
      on t.workload_id = c.workload_id and t.platform_id = pp.platform_id and t.dtype = c.model_dtype
     and not t.fits and (c.kind = 'serving' or t.n_gpus = c.gpu_count)
    group by c.case_index
)
select
    c.case_index,
    b.platform_id,
    b.layout,
    b.run_dtype,
    b.per_gpu * k.factor as predicted_per_gpu,
    b.per_gpu * k.factor * c.gpu_count as predicted_tokens_per_s,
    b.bottleneck,
    k.confidence,
    k.basis as calibration_basis,
    -- training results are times: the job's tokens at the predicted rate
    case when c.kind <> 'serving' then w.total_tokens / (b.per_gpu * k.factor * c.gpu_count) / 60.0 end
        as predicted_time_to_train_min,
    case
        when pp.platform_id is null then 'no platform model for this GPU'
        when b.case_index is null then coalesce('does not fit: ' || r.refusal, 'no layout fits on '
                                               || c.gpu_count || ' GPUs')
    end as reason
from cases c
join workload w using (workload_id)
left join platform_pick pp on pp.case_index = c.case_index and pp.rank = 1
left join candidates b on b.case_index = c.case_index and b.rank = 1
left join calibration_choice k on k.workload_id = c.workload_id and k.platform_id = b.platform_id
left join refusal r on r.case_index = c.case_index
order by c.case_index;
