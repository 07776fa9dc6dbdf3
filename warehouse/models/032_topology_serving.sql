-- grain: one row per serving workload x platform x dtype x n_gpus (the cases' platforms; case_index null)
-- topology_serving: the serving choice before calibration, which calibration compares with
-- the measurements (serving_factor_uncalibrated is empty: every layout at factor 1).
create or replace table topology_serving as select * from serving_choice('uncalibrated');
