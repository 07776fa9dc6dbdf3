-- grain: one row per latency-limited latest serving point x colocated layout (family x tp x pp x ep) x b_gpu
-- calibration_rates: for every latest serving result measured under latency limits (Server,
-- Interactive), every batch of the case's layouts (case_layout's rule: serving_case_fits, its
-- precision) with the factor from which it meets the limits (min_factor: latency_min_factor,
-- the rule serving_choice's `fits` applies) and the rate per GPU it then serves per unit of
-- factor. The calibrated choice at a factor f takes the best of those that meet the limits, so
-- the rate there is f x max(per_gpu_at_1 where min_factor <= f): calibration_step solves it for
-- the measurement, and the backtest predicts with it (058_backtest_level).
create or replace table calibration_rates as
select
    p.source, p.source_ref, p.source_row, p.measured_per_gpu,
    latency_min_factor(s.t_step_p99_s, s.t_ttft_p99_s, s.t_kv_transfer_s, s.accept_len, s.tpot_ms, s.ttft_ms)
        as min_factor,
    s.b * s.accept_len / (s.t_decode_s + s.t_prefill_load_s) * s.occupancy * s.replicas / s.n_gpus
        as per_gpu_at_1
from calibration_point p
join case_platform h
  on h.source = p.source and h.source_ref = p.source_ref and h.source_row is not distinct from p.source_row
-- (the uncalibrated pass: every layout once, at factor 1)
join serving_batch('uncalibrated') s
  on s.workload_id = h.workload_id and s.platform_id = h.platform_id and s.dtype = h.model_dtype
 and serving_case_fits(s.n_gpus, s.scaleup_group, h.gpu_count, h.gpus_per_node)
where p.latest and p.kind = 'serving' and s.fits_memory and not s.disagg
  and (s.ttft_ms is not null or s.tpot_ms is not null);
