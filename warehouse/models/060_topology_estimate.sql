-- Calibrated physics per workload x platform x GPU count: throughput, time to finish,
-- GPU-hours and energy, with the calibration it rests on and an error band.

create or replace table topology_estimate as
select
    (select run_id from run_context) as run_id,
    (select run_date from run_context) as run_date,
    t.workload_id, t.platform_id, t.gpu_id, t.kind, t.dtype, t.n_gpus, t.nodes, t.layout, t.scaleup_group,
    p.scaleup_domain_gpus,
    t.run_dtype, t.tp, t.pp, t.dp, t.batch, t.producers, t.consumers,
    t.t_compute_s, t.t_memory_s, t.t_comm_s, t.t_step_s,
    t.bottleneck, t.mem_per_gpu_gb, t.mem_capacity_gb, t.fits, t.refusal,
    t.tokens_per_s as model_tokens_per_s,
    t.tokens_per_s * c.factor as tokens_per_s,
    t.tokens_per_s * c.factor / t.n_gpus as tokens_per_s_per_gpu,
    t.token_unit,
    -- wall clock for the whole job, with failed work re-done
    t.total_tokens / (t.tokens_per_s * c.factor) / 3600.0 * (1 + assume('failed_work_overhead'))
        as time_to_finish_h,
    t.n_gpus * t.total_tokens / (t.tokens_per_s * c.factor) / 3600.0 * (1 + assume('failed_work_overhead'))
        as gpu_hours,
    t.kw_per_gpu * t.n_gpus * assume('pue')
        * t.total_tokens / (t.tokens_per_s * c.factor) / 3600.0 * (1 + assume('failed_work_overhead'))
        as energy_kwh,
    c.factor as calibration_factor,
    c.level as calibration_level,
    c.basis as calibration_basis,
    c.confidence,
    b.error_p50,
    b.error_p90,
    t.total_tokens
from topology_raw t
join workload w on w.workload_id = t.workload_id and w.dtype = t.dtype  -- estimates: the workload's own dtype
join platform_spec p on p.platform_id = t.platform_id
join calibration_choice c
  on c.workload_id = t.workload_id and c.platform_id = t.platform_id and c.gpu_id = t.gpu_id
left join error_band b on b.confidence = c.confidence and b.kind = t.kind
-- GPU counts beyond what a platform scales to are modelled only to compare with benchmarks
where t.n_gpus <= p.gpus_per_node * p.max_nodes;
