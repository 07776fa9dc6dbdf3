-- Backtest: leave one accelerator out. Each calibration point is predicted with factors
-- learnt only from OTHER accelerators (levels 2-5), as an estimate for a GPU with no
-- benchmark of its own would be. Its errors are the error band every estimate carries.
-- Like calibration, it uses each workload x GPU's latest results.

create or replace table backtest as
with latest as (select * from calibration_point where latest),
held_out as (
    select
        p.*,
        (select c.factor
         from (
             select 2 as level, exp(avg(ln(q.ratio))) as factor, count(*) as n
             from latest q where q.gpu_id <> p.gpu_id and q.workload_id = p.workload_id and q.family = p.family
             union all
             select 3, exp(avg(ln(q.ratio))), count(*)
             from latest q where q.gpu_id <> p.gpu_id and q.workload_id = p.workload_id
             union all
             select 4, exp(avg(ln(q.ratio))), count(*)
             from latest q where q.gpu_id <> p.gpu_id and q.scenario_kind = p.scenario_kind and q.family = p.family
             union all
             select 5, exp(avg(ln(q.ratio))), count(*)
             from latest q where q.gpu_id <> p.gpu_id and q.scenario_kind = p.scenario_kind
             union all
             select 6, exp(avg(ln(q.ratio))), count(*)
             from latest q where q.gpu_id <> p.gpu_id and q.kind = p.kind and q.family = p.family
             union all
             select 7, exp(avg(ln(q.ratio))), count(*)
             from latest q where q.gpu_id <> p.gpu_id and q.kind = p.kind
         ) c
         where c.n > 0
         order by c.level
         limit 1) as loao_factor,
        (select exp(avg(ln(q.ratio))) from latest q
         where q.gpu_id = p.gpu_id and q.workload_id = p.workload_id) as own_factor
    from latest p
)
select
    *,
    model_per_gpu * coalesce(loao_factor, 1.0) as loao_predicted_per_gpu,
    abs(model_per_gpu * coalesce(loao_factor, 1.0) - measured_per_gpu) / measured_per_gpu as loao_ape,
    abs(model_per_gpu * own_factor - measured_per_gpu) / measured_per_gpu as in_sample_ape,
    abs(model_per_gpu - measured_per_gpu) / measured_per_gpu as default_ape
from held_out;

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
