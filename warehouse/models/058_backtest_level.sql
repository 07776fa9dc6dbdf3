-- grain: one row per latest calibration point (source x source_ref x source_row) x level (2-8) it can learn from
-- backtest_level: every latest point predicted at every level it could be calibrated at
-- without its own measurement: level 2 from the same GPU at other GPU counts, levels 3-8 from
-- other accelerators only (leave one accelerator out), as an estimate for a GPU with no
-- benchmark of its own would be. Its errors decide which levels calibration may use and give
-- every estimate its band.
create or replace table backtest_level as
with latest as (select * from calibration_point where latest),
predicted as (
    select p.source, p.source_ref, p.source_row, l.level, geometric_mean(l.ratio) as factor, count(*) as from_points
    from latest p
    join calibration_level l
      on l.level >= 2
     and (   (l.level = 2 and l.point_gpu = p.gpu_id and l.point_count <> p.gpu_count)
          or (l.level >= 3 and l.point_gpu <> p.gpu_id))
     and calibration_applies(l.workload_id, l.gpu_id, l.gpu_count, l.family, l.kind,
                             p.workload_id, p.gpu_id, p.gpu_count, p.family, p.kind, p.scenario_kind)
    group by all
),
limited as (
    -- under latency limits the estimate chooses its batch again under the factor (the step
    -- slows, the batch shrinks): the rate it would publish is the best of the case's batches
    -- that meet the limits at that factor (calibration_rates), none if no batch does
    select x.source, x.source_ref, x.source_row, x.level,
           coalesce(max(r.per_gpu_at_1) filter (where r.min_factor <= x.factor), 0) * any_value(x.factor)
               as per_gpu
    from predicted x
    join calibration_rates r using (source, source_ref, source_row)
    group by x.source, x.source_ref, x.source_row, x.level
),
rated as (
    select x.*, coalesce(l.per_gpu, p.model_per_gpu * x.factor) as predicted_per_gpu
    from predicted x
    join latest p using (source, source_ref, source_row)
    left join limited l using (source, source_ref, source_row, level)
)
select
    p.workload_id, p.kind, p.scenario_kind, p.gpu_id, p.family, p.gpu_count, p.source, p.source_ref, p.source_row,
    p.measured_per_gpu, p.model_per_gpu,
    x.level, x.factor, x.from_points, x.predicted_per_gpu,
    abs(x.predicted_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as ape,
    abs(p.model_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as default_ape
from latest p
join rated x using (source, source_ref, source_row);
