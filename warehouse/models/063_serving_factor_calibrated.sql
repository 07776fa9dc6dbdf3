-- grain: one row per serving workload x platform x n_gpus x case_index (null: the estimates' factor)
-- serving_factor_calibrated: the factor each serving estimate publishes, so the serving choice
-- is made again with calibrated step times (064_topology_serving_calibrated). A serving case
-- `gpucalc predict` asks about takes, on every system size of its platform, that size's factor
-- where the case is whole such systems (a serving result measures the deployment it was
-- compared with), else its own count's (serving_case_calibration_gpus), under its case_index
-- (predict keeps those that can stand for the case): its batch, too, must meet the limits at
-- the rate predicted. `band_p90` weighs deployments calibrated at different levels
-- (serving_choice); a level with too few points for a band of its own (error_band:
-- unvalidated) counts the widest band its kind of workload has earned, not none, so a
-- calibration nobody could check never outranks one that was checked.
create or replace table serving_factor_calibrated as
with band as (
    select kind, level, coalesce(error_p90, max(error_p90) over (partition by kind)) as band_p90
    from error_band
)
select c.workload_id, c.platform_id, c.n_gpus, c.factor, null::integer as case_index, b.band_p90
from calibration_choice c
join workload w using (workload_id)
left join band b on b.kind = w.kind and b.level = c.level
where w.kind = 'serving'
union all
select distinct h.workload_id, h.platform_id, l.n_gpus, k.factor, h.case_index, b.band_p90
from case_platform h
join serving_layout l on l.workload_id = h.workload_id and l.platform_id = h.platform_id
join calibration_choice k
  on k.workload_id = h.workload_id and k.platform_id = h.platform_id
 and k.n_gpus = serving_case_calibration_gpus(h.gpu_count, l.n_gpus)
left join band b on b.kind = 'serving' and b.level = k.level
where h.kind = 'serving' and h.case_index is not null;
