-- grain: one row per latest calibration point whose workload x GPU has a result of an earlier round
-- backtest_round: leave the latest round out. Estimates rest on each workload x GPU's latest
-- round (calibration_point), the software of today; this predicts every such latest result as
-- the same workload on the same accelerator measured one round earlier would: the model's rate
-- for the latest result's deployment times the earlier round's ratio of measured to modelled
-- (the geometric mean of that round's results). Its error is what software moved between the
-- rounds, the band of an estimate that rests on a round older than the latest.
create or replace table backtest_round as
with earlier as (
    -- per latest point, the newest earlier round of its workload x GPU
    select l.source, l.source_ref, l.source_row, l.workload_id, l.gpu_id, max(e.measured_at) as from_measured_at
    from calibration_point l
    join calibration_point e
      on e.workload_id = l.workload_id and e.gpu_id = l.gpu_id and e.measured_at < l.measured_at
    where l.latest
    group by all
),
learnt as (
    select x.source, x.source_ref, x.source_row, any_value(e.round) as from_round,
           geometric_mean(e.ratio) as factor, count(*) as from_points
    from earlier x
    join calibration_point e
      on e.workload_id = x.workload_id and e.gpu_id = x.gpu_id and e.measured_at = x.from_measured_at
    group by x.source, x.source_ref, x.source_row
)
select
    p.source, p.source_ref, p.source_row, p.workload_id, p.kind, p.scenario_kind, p.gpu_id, p.gpu_count, p.class,
    p.round, x.from_round, x.factor, x.from_points,
    p.measured_per_gpu,
    p.model_per_gpu * x.factor as predicted_per_gpu,
    abs(p.model_per_gpu * x.factor - p.measured_per_gpu) / p.measured_per_gpu as ape,
    abs(p.model_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as default_ape
from calibration_point p
join learnt x on x.source = p.source and x.source_ref = p.source_ref and x.source_row is not distinct from p.source_row;
