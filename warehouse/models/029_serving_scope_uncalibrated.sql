-- grain: one row per serving workload x platform (the cases' platforms only)
-- serving_scope_uncalibrated: the workload x platform pairs the first, uncalibrated serving
-- pass times. That pass is read only where calibration compares the model with a measurement
-- and where `gpucalc predict` asks (case_layout), so it times only those cases' platforms;
-- the calibrated pass times every pair (063_serving_scope_calibrated).
create or replace table serving_scope_uncalibrated as
select distinct c.workload_id, c.platform_id
from case_platform c
where c.kind = 'serving';
