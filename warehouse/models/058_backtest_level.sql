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
)
select
    p.workload_id, p.kind, p.scenario_kind, p.gpu_id, p.family, p.gpu_count, p.source, p.source_ref, p.source_row,
    p.measured_per_gpu, p.model_per_gpu,
    x.level, x.factor, x.from_points,
    abs(p.model_per_gpu * x.factor - p.measured_per_gpu) / p.measured_per_gpu as ape,
    abs(p.model_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as default_ape
from latest p
join predicted x using (source, source_ref, source_row);
