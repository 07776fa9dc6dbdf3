-- Backtest: leave one accelerator out. Each calibration point is predicted with factors
-- learnt only from OTHER accelerators (levels 2-5), as an estimate for a GPU with no
-- benchmark of its own would be. Its errors are the error band every estimate carries.
-- Like calibration, it uses each workload x GPU's latest results.

create or replace table backtest as
with latest as (select * from calibration_point where latest),
held_out as (
    -- per point and level, the factor learnt from the points of OTHER accelerators only
    select p.source, p.source_ref, p.source_row, l.level, exp(avg(ln(l.ratio))) as factor
    from latest p
    join calibration_level l
      on l.level >= 2 and l.point_gpu <> p.gpu_id
     and calibration_applies(l.workload_id, l.gpu_id, l.family, l.kind, p.workload_id, p.gpu_id, p.family,
                             p.kind, p.scenario_kind)
    group by all
),
chosen as (
    select source, source_ref, source_row, arg_min(factor, level) as loao_factor
    from held_out group by all
),
own as (
    select workload_id, gpu_id, exp(avg(ln(ratio))) as own_factor from latest group by all
)
select
    p.*,
    c.loao_factor,
    o.own_factor,
    p.model_per_gpu * coalesce(c.loao_factor, 1.0) as loao_predicted_per_gpu,
    abs(p.model_per_gpu * coalesce(c.loao_factor, 1.0) - p.measured_per_gpu) / p.measured_per_gpu as loao_ape,
    abs(p.model_per_gpu * o.own_factor - p.measured_per_gpu) / p.measured_per_gpu as in_sample_ape,
    abs(p.model_per_gpu - p.measured_per_gpu) / p.measured_per_gpu as default_ape
from latest p
left join chosen c using (source, source_ref, source_row)
left join own o using (workload_id, gpu_id);

-- Error percentiles per confidence level and workload kind (falling back to all kinds).
create or replace table error_band as
with errors as (
    select kind, 'calibrated' as confidence, loao_ape as ape from backtest where loao_factor is not null
    union all select kind, 'measured', in_sample_ape from backtest
    union all select kind, 'default', default_ape from backtest
),
by_kind as (
    select kind, confidence, quantile_cont(ape, 0.5) as error_p50, quantile_cont(ape, 0.9) as error_p90,
           count(*) as points
    from errors group by all
),
overall as (
    select confidence, quantile_cont(ape, 0.5) as error_p50, quantile_cont(ape, 0.9) as error_p90,
           count(*) as points
    from errors group by all
)
select k.kind, c.confidence,
       coalesce(b.error_p50, o.error_p50, 0.5) as error_p50,
       coalesce(b.error_p90, o.error_p90, 1.0) as error_p90,
       coalesce(b.points, 0) as points,
       case when b.points is not null then 'backtest of this kind'
            when o.points is not null then 'backtest of all kinds'
            else 'no backtest: assumed +-50% / +-100%' end as basis
from (select distinct kind from workload) k
cross join (values ('measured'), ('calibrated'), ('default')) c(confidence)
left join by_kind b on b.kind = k.kind and b.confidence = c.confidence
left join overall o on o.confidence = c.confidence;
