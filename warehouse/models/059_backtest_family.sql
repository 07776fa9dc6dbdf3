-- grain: one row per latest calibration point (source x source_ref x source_row) another model family calibrates
-- backtest_family: every latest point predicted as an estimate of a model family nobody measured
-- would be (leave one model family out): calibrated only from the results of other families of
-- the same kind of workload and scenario, on the very accelerator where it has such results
-- (a new model on hardware you measured), else on its GPU family, else on every accelerator;
-- beside the uncalibrated model on the same point. Under latency limits the batch is chosen
-- again under the factor, as backtest_level does (calibration_rates). Whether more measured
-- results of other workloads help a new family is this table's question: `gpucalc backtest`
-- prints its errors per class next to the uncalibrated model's.
create or replace table backtest_family as
with latest as (
    -- under latency limits a point's factor is its step factor, as every calibration level's is
    -- (calibration_level), so the batch chosen again under it is counted once
    select p.* replace (coalesce(s.step_factor, p.ratio) as ratio)
    from calibration_point p
    left join calibration_step s
      on s.source = p.source and s.source_ref = p.source_ref and s.source_row is not distinct from p.source_row
    where p.latest and p.model_family is not null
),
learnt as (
    -- per point, each reach of the other families' results: 1 the same accelerator, 2 its GPU
    -- family, 3 every accelerator
    select p.source, p.source_ref, p.source_row, r.reach, geometric_mean(q.ratio) as factor, count(*) as from_points
    from latest p
    join latest q on q.scenario_kind = p.scenario_kind and q.model_family <> p.model_family
    cross join (values (1), (2), (3)) r(reach)
    where (r.reach = 1 and q.gpu_id = p.gpu_id) or (r.reach = 2 and q.family = p.family) or r.reach = 3
    group by all
),
nearest as (
    select source, source_ref, source_row, arg_min(factor, reach) as factor, min(reach) as reach,
           arg_min(from_points, reach) as from_points
    from learnt group by all
),
limited as (
    select x.source, x.source_ref, x.source_row,
           coalesce(max(r.per_gpu_at_1) filter (where r.min_factor <= x.factor), 0) * any_value(x.factor) as per_gpu
    from nearest x
    join calibration_rates r using (source, source_ref, source_row)
    group by all
)
select
    p.source, p.source_ref, p.source_row, p.workload_id, p.kind, p.scenario_kind, p.gpu_id, p.gpu_count,
    p.model_family,
    p.class,
    x.reach,
    case x.reach when 1 then 'other families on the same accelerator' when 2 then 'other families on its GPU family'
                 else 'other families on every accelerator' end as reach_basis,
    x.factor, x.from_points,
    p.measured_per_gpu,
    coalesce(l.per_gpu, p.model_per_gpu * x.factor) as predicted_per_gpu,
    abs(coalesce(l.per_gpu, p.model_per_gpu * x.factor) - p.measured_per_gpu) / p.measured_per_gpu as ape,
    abs(p.model_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as default_ape
from latest p
join nearest x on x.source = p.source and x.source_ref = p.source_ref and x.source_row is not distinct from p.source_row
left join limited l on l.source = p.source and l.source_ref = p.source_ref and l.source_row is not distinct from p.source_row;
