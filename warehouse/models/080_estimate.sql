-- Estimate: every feasible topology priced with every matching quote. An instance must
-- hold the topology's scale-up group (tensor-parallel group, or the whole role pipeline),
-- except in rack-scale NVLink domains (NVL72) where trays of one rack are rented together.
-- You pay for whole instances: ceil(GPUs / GPUs per instance) of them.

create or replace view estimate as
select
    t.run_id, t.run_date,
    t.workload_id, t.platform_id, t.gpu_id, t.kind, t.n_gpus, t.nodes, t.layout, t.run_dtype,
    t.bottleneck, t.tokens_per_s, t.tokens_per_s_per_gpu, t.token_unit,
    t.time_to_finish_h, t.gpu_hours, t.energy_kwh, t.mem_per_gpu_gb, t.mem_capacity_gb,
    q.provider, q.region, q.zone, q.instance_type, q.pricing, q.gpus_per_instance,
    q.usd_per_instance_hour, q.usd_per_gpu_hour,
    ceil(t.n_gpus / q.gpus_per_instance) as instances,
    ceil(t.n_gpus / q.gpus_per_instance) * q.usd_per_instance_hour as usd_per_hour,
    ceil(t.n_gpus / q.gpus_per_instance) * q.usd_per_instance_hour * t.time_to_finish_h as usd_total,
    usd_per_mtok(ceil(t.n_gpus / q.gpus_per_instance) * q.usd_per_instance_hour, t.tokens_per_s)
        as usd_per_mtok,
    t.confidence, t.calibration_basis, t.calibration_factor, t.error_p50, t.error_p90,
    q.observed_at as price_observed_at, q.source as price_source, q.source_ref as price_source_ref
from topology_estimate t
join price_option q
  on q.gpu = t.gpu_id
 and (q.platform_id is null or q.platform_id = t.platform_id)
 and (q.gpus_per_instance >= least(t.scaleup_group, t.n_gpus)
      or (t.scaleup_domain_gpus > 8 and q.gpus_per_instance >= 1))
where t.fits and t.tokens_per_s > 0;
