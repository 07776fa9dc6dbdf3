-- grain: one row per latest calibration point (source x source_ref x source_row)
-- backtest: every latest point as the estimate of a GPU that was never measured would be made:
-- the most specific trusted level from other accelerators (levels 3-8), next to the
-- uncalibrated model and the in-sample fit of its own measurement (its ratio, which reproduces
-- it).
create or replace table backtest as
with held_out as (
    select b.source, b.source_ref, b.source_row, arg_min(b.factor, b.level) as loao_factor,
           arg_min(b.predicted_per_gpu, b.level) as loao_predicted_per_gpu, min(b.level) as loao_level
    from backtest_level b
    join calibration_trust k on k.level = b.level and k.workload_id = b.workload_id and k.trusted
    where b.level >= 3
    group by all
),
own as (
    select workload_id, gpu_id, gpu_count, geometric_mean(ratio) as own_factor
    from calibration_point where latest group by all
)
select
    p.*,
    h.loao_factor,
    h.loao_level,
    o.own_factor,
    -- as the estimate would publish it (backtest_level: under latency limits the batch is
    -- chosen again under the factor), else the uncalibrated model
    coalesce(h.loao_predicted_per_gpu, p.model_per_gpu) as loao_predicted_per_gpu,
    abs(coalesce(h.loao_predicted_per_gpu, p.model_per_gpu) - p.measured_per_gpu) / p.measured_per_gpu as loao_ape,
    abs(p.model_per_gpu * o.own_factor - p.measured_per_gpu) / p.measured_per_gpu as in_sample_ape,
    abs(p.model_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as default_ape
from calibration_point p
left join held_out h using (source, source_ref, source_row)
left join own o using (workload_id, gpu_id, gpu_count)
where p.latest;
