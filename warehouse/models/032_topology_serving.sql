-- grain: one row per serving workload x platform x dtype x n_gpus (the cases' platforms; case_index null)
-- topology_serving: the serving choice before calibration, which calibration compares with
-- the measured results (serving_factor is empty at this point).
create or replace table topology_serving as select * from serving_choice;
