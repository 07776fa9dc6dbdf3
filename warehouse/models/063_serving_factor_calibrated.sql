-- serving_factor, calibrated: the factor each serving estimate publishes, so the serving choice
-- is made again with calibrated step times (064_topology_serving_calibrated).
create or replace table serving_factor as
select c.workload_id, c.platform_id, c.n_gpus, c.factor
from calibration_choice c
join workload w using (workload_id)
where w.kind = 'serving';
