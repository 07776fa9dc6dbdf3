-- calibration_choice: the factor each estimate (workload x platform x GPU count) uses: the
-- measurement at that very count and deployment, else the most specific level the backtest
-- trusts for its kind of workload, else none (the documented efficiencies alone). Predicted
-- cases get the factor of their own GPU count (a 16-GPU serving result is two 8-GPU systems,
-- but only a 16-GPU measurement is "measured" for it). A 16-GPU serving estimate is one
-- replica spanning two systems, which nobody measured: the 16-GPU result (two systems full of
-- replicas) does not make it "measured" (`as_deployed`), unless a case of `gpucalc predict`
-- asks about that count (in predict's private copy, which publishes no estimate).
create or replace table calibration_choice as
with targets as (
    select t.workload_id, t.platform_id, t.gpu_id, t.n_gpus, w.kind,
           scenario_kind(w.kind, w.scenario) as scenario_kind, g.family, bool_or(t.is_case) as asked_by_case
    -- every estimate's key: the first serving pass chose only the cases' platforms, so serving
    -- keys come from the layouts themselves
    from (select workload_id, platform_id, gpu_id, n_gpus, false as is_case from topology_raw where kind <> 'serving'
          union all
          select workload_id, platform_id, gpu_id, n_gpus, false from serving_layout
          union all
          -- a case asks at its own count on its platform, whether or not a layout matched it
          select workload_id, platform_id, gpu_id, gpu_count, true from case_platform where case_index is not null) t
    join workload w using (workload_id)
    join gpu g on g.gpu_id = t.gpu_id
    group by all
),
usable as (
    select t.workload_id, t.platform_id, t.gpu_id, t.n_gpus, c.level, c.factor, c.basis, c.points,
           row_number() over (partition by t.workload_id, t.platform_id, t.gpu_id, t.n_gpus order by c.level) as rank
    from targets t
    join calibration c
      on calibration_applies(c.workload_id, c.gpu_id, c.gpu_count, c.family, c.kind, t.workload_id, t.gpu_id,
                             t.n_gpus, t.family, t.kind, t.scenario_kind)
    left join calibration_trust k on k.level = c.level and k.kind = t.scenario_kind
    where (c.level = 1 and (c.as_deployed or t.asked_by_case)) or (c.level > 1 and coalesce(k.trusted, false))
)
select
    t.workload_id, t.platform_id, t.gpu_id, t.n_gpus,
    coalesce(u.level, 0) as level,
    coalesce(u.factor, 1.0) as factor,
    coalesce(u.basis, 'default: documented efficiencies, no calibration the backtest supports') as basis,
    coalesce(u.points, 0) as points,
    case when u.level = 1 then 'measured' when u.level is not null then 'calibrated' else 'default' end
        as confidence
from targets t
left join usable u
  on u.workload_id = t.workload_id and u.platform_id = t.platform_id and u.gpu_id = t.gpu_id
 and u.n_gpus = t.n_gpus and u.rank = 1;
