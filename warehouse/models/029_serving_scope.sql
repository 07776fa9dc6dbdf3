-- grain: one row per serving workload x platform (the cases' platforms only)
-- serving_scope: the workload x platform pairs a serving pass times. The first, uncalibrated
-- pass is read only where calibration compares the model with a measurement and where
-- `gpucalc predict` asks (case_layout), so it times only those cases' platforms;
-- 063_serving_scope_all widens it to every pair for the published, calibrated pass.
create or replace table serving_scope as
select distinct c.workload_id, c.platform_id
from case_platform c
where c.kind = 'serving';
