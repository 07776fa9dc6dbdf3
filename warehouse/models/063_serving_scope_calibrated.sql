-- grain: one row per serving workload x platform (every pair)
-- serving_scope_calibrated: the workload x platform pairs the calibrated serving pass
-- (064_topology_serving_calibrated) times: the published layout of every serving workload on
-- every platform.
create or replace table serving_scope_calibrated as
select w.workload_id, p.platform_id
from workload_spec w
cross join platform_spec p
where w.kind = 'serving';
