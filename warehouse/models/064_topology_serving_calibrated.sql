-- topology_serving_calibrated: the serving choice under the calibrated factors: throughput,
-- TTFT and TPOT as published, the batch chosen so the calibrated numbers meet the limits.
create or replace table topology_serving_calibrated as select * from serving_choice;
