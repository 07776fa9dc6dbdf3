-- Predict each requested case (model_request rows with a case_index): the layout case_layout
-- matched to it, the very rule calibration points use, times the calibration factor of the
-- case's own GPU count. Serving results are per system (the best per-GPU rate of a layout
-- that fits in the case's GPUs, times its GPU count); training and role pipelines use the
-- exact count.
select
    r.case_index,
    m.platform_id,
    m.layout,
    m.run_dtype,
    m.tokens_per_s / m.n_gpus * k.factor as predicted_per_gpu,
    m.tokens_per_s / m.n_gpus * k.factor * r.gpu_count as predicted_tokens_per_s,
    m.bottleneck,
    k.confidence,
    k.basis as calibration_basis,
    e.error_p50,
    e.error_p90,
    e.basis as error_basis,
    -- training results are times: the job's tokens at the predicted rate
    case when w.kind <> 'serving' then m.total_tokens / (m.tokens_per_s / m.n_gpus * k.factor * r.gpu_count) / 60.0
    end as predicted_time_to_train_min,
    case
        when m.platform_id is null then 'no platform model for this GPU'
        when not m.fits then 'does not fit: ' || coalesce(m.refusal, 'no layout fits on ' || r.gpu_count || ' GPUs')
    end as reason
from model_request r
join workload w using (workload_id)
left join case_layout m on m.case_index = r.case_index
left join calibration_choice k
  on k.workload_id = r.workload_id and k.platform_id = m.platform_id and k.n_gpus = r.gpu_count and m.fits
left join error_band e on e.kind = w.kind and e.level = k.level
where r.case_index is not null
order by r.case_index;
