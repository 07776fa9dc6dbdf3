-- grain: one row per workload x platform x n_gpus (gpu_id follows from the platform)
-- calibration_choice: the factor each estimate (workload x platform x GPU count) uses: the
-- measurement of that very deployment, else the most specific level the backtest trusts for
-- its kind of workload (for a model family with no result of that kind, the levels learnt from
-- other workloads only where family_trust says they help), else none (the documented
-- efficiencies alone). A serving result is a
-- measurement of the deployment it was compared with (case_layout): a 16-GPU result of two
-- 8-GPU systems full of replicas measured the 8-GPU system, and vouches for the 8-GPU
-- estimate and for k copies of it (serving_choice), not for one replica spanning two systems.
-- Predicted cases get the factor of their own GPU count.
create or replace table calibration_choice as
with targets as (
    select t.workload_id, t.platform_id, t.gpu_id, t.n_gpus, w.kind,
           scenario_kind(w.kind, w.scenario) as scenario_kind, g.family,
           estimate_class(w.kind, m.experts, g.form_factor, w.scenario) as class,
           -- a model family with a result of this kind (and scenario) of its own: not a new model
           exists (select 1 from calibration_point p
                   where p.latest and p.model_family = m.family
                     and p.scenario_kind = scenario_kind(w.kind, w.scenario)) as family_measured
    -- every estimate's key: the first serving pass chose only the cases' platforms, so serving
    -- keys come from the layouts themselves; any other from the options (topology_raw, the
    -- published choice among them, has the same keys)
    from (select workload_id, platform_id, gpu_id, n_gpus from topology_option where kind <> 'serving'
          union all
          select workload_id, platform_id, gpu_id, n_gpus from serving_layout
          union all
          -- a case asks at its own count on its platform, whether or not a layout matched it
          select workload_id, platform_id, gpu_id, gpu_count from case_platform where case_index is not null) t
    join workload w using (workload_id)
    left join model m on m.model_id = w.model_id
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
    left join calibration_trust k on k.level = c.level and k.workload_id = t.workload_id
    left join family_trust f on f.kind = t.scenario_kind and f.class = t.class
    where (c.level = 1 or coalesce(k.trusted, false))
      -- other workloads' factors (levels 5-8) reach a model family nobody measured in this kind
      -- only where leaving a family out shows they help one (family_trust)
      and (c.level < 5 or t.family_measured or coalesce(f.trusted, false))
)
select
    t.workload_id, t.platform_id, t.gpu_id, t.n_gpus,
    t.class,  -- the estimate's class, whose band it states (topology_estimate)
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
