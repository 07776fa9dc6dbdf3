-- serving_factor: the calibration factor serving layouts are chosen under. Empty (factor 1)
-- for the first choice, which calibration is computed from; 063_serving_factor_calibrated
-- fills it, and the layouts are chosen again so the published, calibrated throughput still
-- meets the TTFT/TPOT limits (a factor below 1 slows every step, so the batch must shrink).
-- A row with a case_index is a case `gpucalc predict` asks about: its layouts are chosen under
-- that case's own factor, apart from the estimates'.
create or replace table serving_factor (
    workload_id varchar, platform_id varchar, n_gpus integer, factor double, case_index integer
);
