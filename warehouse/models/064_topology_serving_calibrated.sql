-- grain: one row per serving workload x platform x dtype x n_gpus x case_index (a predict case: x scaleup_group)
-- topology_serving_calibrated: the serving choice under the calibrated factors: throughput,
-- TTFT and TPOT as published, the batch chosen so the calibrated numbers meet the limits. Rows
-- with a case_index are the cases `gpucalc predict` asks about, each under its own factor
-- (warehouse/questions/sql/predict.sql); the estimates are the rows without.
create or replace table topology_serving_calibrated as select * from serving_choice('calibrated');
