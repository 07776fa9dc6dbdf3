-- grain: one row per serving workload x platform x n_gpus x case_index (created empty here)
-- serving_factor: the calibration factor serving layouts are chosen under. Empty (factor 1)
-- for the first choice, which calibration is computed from; 063_serving_factor_calibrated
-- fills it, and the layouts are chosen again so the published, calibrated throughput still
-- meets the TTFT/TPOT limits (a factor below 1 slows every step, so the batch must shrink).
-- A row with a case_index is a case `gpucalc predict` asks about: its layouts are chosen under
-- that case's own factor, apart from the estimates'. `band_p90`: the 90th-percentile held-out
-- error of the factor's calibration level (error_band), by which serving_choice discounts a
-- deployment when it weighs deployments of one GPU count calibrated at different levels.
create or replace table serving_factor (
    workload_id varchar, platform_id varchar, n_gpus integer, factor double, case_index integer, band_p90 double
);
