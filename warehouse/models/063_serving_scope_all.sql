-- grain: one row per serving workload x platform (every pair)
-- serving_scope, widened: the calibrated pass (064_topology_serving_calibrated) chooses the
-- published layout of every serving workload on every platform.
create or replace table serving_scope as
select w.workload_id, p.platform_id
from workload_spec w
cross join platform_spec p
where w.kind = 'serving';
