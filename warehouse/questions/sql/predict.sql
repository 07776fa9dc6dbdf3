-- Predict each requested case (model_request rows with a case_index) on its platform
-- (case_platform). Training and role pipelines: the layout case_layout matched to it, the very
-- rule calibration points use, times the calibration factor of the case's own GPU count.
-- Serving results are per system (case_layout's rule: the best per-GPU rate of a layout that
-- fits in the case's GPUs, times its GPU count), each system size chosen under its own factor
-- (the case's rows of topology_serving_calibrated, the best of each scale-up group size), so
-- the predicted rate's batch meets the latency limits, as the published estimate's does (a
-- measured system's factor reproduces its measurement: calibration_step); its calibration is
-- that system's where the case is whole systems (serving_case_calibration_gpus).
with served as (
    select s.case_index, s.platform_id, s.layout, s.run_dtype, s.bottleneck, s.fits, s.refusal,
           s.tokens_per_s / s.n_gpus as per_gpu, s.n_gpus,
           -- case_layout's serving rule, at the calibrated rates
           row_number() over (partition by s.case_index
                              order by s.fits desc,
                                       case_layout_cost(s.fits, 'serving', s.tokens_per_s, s.n_gpus, null),
                                       s.layout) as rank
    from topology_serving_calibrated s
    join case_platform h
      on h.case_index = s.case_index and h.platform_id = s.platform_id and h.model_dtype = s.dtype
    where s.systems = 1 and serving_case_fits(s.n_gpus, s.scaleup_group, h.gpu_count, h.gpus_per_node)
),
predicted as (
    select
        r.case_index, r.gpu_count, w.kind, coalesce(m.platform_id, h.platform_id) as platform_id, m.total_tokens,
        k.confidence, k.level, k.basis as calibration_basis,
        k.class,  -- the band's class (calibration_choice): a case with no calibration row has no band
        coalesce(s.layout, m.layout) as layout,
        coalesce(s.run_dtype, m.run_dtype) as run_dtype,
        coalesce(s.bottleneck, m.bottleneck) as bottleneck,
        case when w.kind = 'serving' then s.per_gpu else m.tokens_per_s / m.n_gpus * k.factor end as per_gpu,
        case
            when h.platform_id is null then 'no platform model for this GPU'
            -- serving: the case's own choice (a 1-GPU result matches a layout of 1-GPU replicas
            -- even where the system's best layout spans more)
            when w.kind = 'serving' and s.case_index is null
            then 'no layout fits on ' || r.gpu_count || ' GPUs'
            when w.kind = 'serving' and not s.fits then 'does not fit: ' || s.refusal
            when w.kind <> 'serving' and m.platform_id is null then 'no layout fits on ' || r.gpu_count || ' GPUs'
            when w.kind <> 'serving' and not m.fits
            then 'does not fit: ' || coalesce(m.refusal, 'no layout fits on ' || r.gpu_count || ' GPUs')
        end as reason
    from model_request r
    join workload w using (workload_id)
    left join case_platform h on h.case_index = r.case_index
    left join case_layout m on m.case_index = r.case_index
    left join served s on s.case_index = r.case_index and s.rank = 1
    left join calibration_choice k
      on k.workload_id = r.workload_id and k.platform_id = h.platform_id
     and k.n_gpus = serving_case_calibration_gpus(r.gpu_count, s.n_gpus)  -- no served row: the case's count
     and (w.kind = 'serving' or m.fits)
    where r.case_index is not null
)
select
    p.case_index,
    p.platform_id,
    p.layout,
    p.run_dtype,
    case when p.reason is null then p.per_gpu end as predicted_per_gpu,
    case when p.reason is null then p.per_gpu * p.gpu_count end as predicted_tokens_per_s,
    p.bottleneck,
    p.confidence,
    p.calibration_basis,
    e.error_p50,
    e.error_p90,
    e.basis as error_basis,
    -- training results are times: the job's tokens at the predicted rate
    case when p.kind <> 'serving' and p.reason is null then p.total_tokens / (p.per_gpu * p.gpu_count) / 60.0
    end as predicted_time_to_train_min,
    p.reason
from predicted p
left join error_band_class e on e.kind = p.kind and e.class = p.class and e.level = p.level
order by p.case_index;
