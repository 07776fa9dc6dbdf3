-- grain: one row per serving workload x platform x n_gpus x case_index (empty: the first pass has no factor)
-- serving_factor_uncalibrated: the factor the first, uncalibrated serving pass
-- (serving_choice('uncalibrated')) chooses under: none, so every layout is timed once at
-- factor 1 and calibration compares that choice with the measurements. An empty table, so
-- that both passes read their factor the same way (serving_batch(pass));
-- 063_serving_factor_calibrated gives the calibrated pass its own.
create or replace table serving_factor_uncalibrated (
    workload_id varchar, platform_id varchar, n_gpus integer, factor double, case_index integer, band_p90 double
);
