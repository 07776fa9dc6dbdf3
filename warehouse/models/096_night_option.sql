-- grain: one row per run_date x workload x platform x n_gpus x pricing
-- Every option of every night's report, whole: each pair of night_option_pair with its
-- topology (night_topology) and its quote (night_quote) of the same night, in the columns
-- and order the single table of that name had (warehouse/build/migrations/night_option_split.py
-- moves an older warehouse's rows into the three).
create or replace view night_option as
select
    t.run_date, t.run_id,
    t.workload_id, t.kind, t.platform_id, t.gpu_id, t.n_gpus, t.nodes, t.layout,
    t.tp, t.pp, t.dp, t.batch, t.producers, t.consumers, t.run_dtype, t.bottleneck,
    t.tokens_per_s, t.token_unit, o.time_to_finish_h, o.gpu_hours, o.energy_kwh, t.mem_per_gpu_gb, t.mem_capacity_gb,
    q.provider, q.region, q.zone, q.instance_type, q.pricing, q.gpus_per_instance, o.instances,
    q.usd_per_instance_hour, q.usd_per_gpu_hour, o.usd_per_hour, o.usd_total, o.usd_per_mtok,
    q.price_observed_at, q.price_source, q.price_source_ref,
    t.confidence, t.calibration_level, t.calibration_basis, t.calibration_factor, t.error_p50, t.error_p90,
    o.on_frontier,
    o.basis_note, o.capacity_note, t.demand_tokens_per_s, t.deployments, t.fleet_gpus, t.fleet_utilization,
    t.purpose,
    t.error_points
from night_option_pair o
join night_topology t on t.run_date = o.run_date and t.topology_id = o.topology_id
join night_quote q on q.run_date = o.run_date and q.quote_id = o.quote_id;
