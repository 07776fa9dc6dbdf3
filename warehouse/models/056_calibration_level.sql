-- grain: one row per latest calibration point (source x source_ref x source_row) x level (1-8)
-- calibration_level: every latest point at every level of calibration, from the measurement
-- itself to the kind of workload on other accelerators; each row carries the keys the level
-- matches on (null: matches anything). `kind` holds the scenario kind at levels 5-6 and the
-- workload kind at 7-8.
-- A result under latency limits calibrates with its step factor (calibration_step) at every
-- level: the factor slows each step and the batch is chosen again under it, so the plain ratio
-- of rates, applied as a step factor, would count the smaller batch twice.
create or replace table calibration_level as
select
    l.level, l.basis, p.gpu_id as point_gpu, p.gpu_count as point_count,
    coalesce(s.step_factor, p.ratio) as ratio,
    case when l.level <= 4 then p.workload_id end as workload_id,
    case when l.level <= 2 then p.gpu_id end as gpu_id,
    -- the measured level vouches for the deployment measured: a 16-GPU result of two 8-GPU
    -- systems full of replicas measured the 8-GPU system (and k copies of it, serving_choice)
    case when l.level = 1 then p.model_gpus end as gpu_count,
    case when l.level in (3, 5, 7) then p.family end as family,
    case when l.level in (5, 6) then p.scenario_kind when l.level in (7, 8) then p.kind end as kind
from calibration_point p
left join calibration_step s
  on s.source = p.source and s.source_ref = p.source_ref and s.source_row is not distinct from p.source_row
cross join (values
    (1, 'measured: same workload, GPU and deployment'),
    (2, 'calibrated: same workload and GPU, other GPU counts'),
    (3, 'calibrated: same workload, same GPU family'),
    (4, 'calibrated: same workload, other GPUs'),
    (5, 'calibrated: same kind and scenario, same GPU family'),
    (6, 'calibrated: same kind and scenario, other GPUs'),
    (7, 'calibrated: same kind of workload, same GPU family'),
    (8, 'calibrated: same kind of workload, other GPUs')
) l(level, basis)
where p.latest;
