-- grain: a macro, one row per topology_id x quote_id pair of its input `pairs`
-- estimate_rows(pairs): the full estimate row of each (topology_id, quote_id) pair in the
-- table named `pairs` (estimate_pair, or the pairs a mart keeps): time, GPU-hours and energy
-- with spot restarts, cost per hour, per job and per million tokens delivered (a serving
-- fleet's demand, else the job's own rate), and what the price basis and the provider's
-- capacity mean for it. One home for these columns, however many rows are built. The last two,
-- the pair's topology_id and quote_id, say which topology_estimate and price_option rows it
-- joins: a mart ranks on a few columns of the rows and builds whole rows for the pairs it keeps.
create or replace macro estimate_rows(pairs) as table
select
    t.run_id, t.run_date,
    t.workload_id, t.platform_id, t.gpu_id, t.kind, t.n_gpus, t.nodes, t.layout, t.run_dtype,
    t.bottleneck, t.tokens_per_s, t.tokens_per_s_per_gpu, t.token_unit,
    t.demand_tokens_per_s, t.unit_gpus, t.deployments, t.fleet_gpus, t.fleet_utilization,
    t.time_to_finish_h * p.time_factor as time_to_finish_h,
    t.gpu_hours * p.time_factor as gpu_hours,
    t.energy_kwh * p.time_factor as energy_kwh,
    t.mem_per_gpu_gb, t.mem_capacity_gb,
    q.provider, q.region, q.zone, q.instance_type, q.pricing, q.gpus_per_instance,
    q.usd_per_instance_hour, q.usd_per_gpu_hour,
    p.instances,
    p.instances * q.usd_per_instance_hour as usd_per_hour,
    p.usd_total,
    usd_per_mtok(p.instances * q.usd_per_instance_hour,
                 coalesce(t.demand_tokens_per_s, t.tokens_per_s) / p.time_factor) as usd_per_mtok,
    case when q.pricing = 'spot' and t.kind = 'serving' then 'spot: replicas can be reclaimed at any time'
         when q.pricing = 'spot' then 'spot: interruptible; time includes checkpoint restarts (spot_restart_overhead)'
         when q.pricing = 'owned' then 'owned: capex over ownership_years at ownership_utilization, power and colocation'
    end as basis_note,
    case when q.pricing = 'owned' or t.fleet_gpus <= q.gpus_per_instance then null
         when q.capacity_gpus is null and q.interconnect = 'unknown'
             then 'capacity and interconnect unknown: the provider publishes neither'
         when q.capacity_gpus is null then 'capacity unknown: the provider publishes no cluster size'
         when q.interconnect = 'unknown' then 'interconnect between instances unknown'
    end as capacity_note,
    -- a deployment wider than one instance, on a provider that publishes no cluster size: the
    -- layout may not be rentable at all (independent serving replicas need no cluster)
    t.unit_gpus > q.gpus_per_instance and q.capacity_gpus is null and q.pricing <> 'owned' as cluster_unknown,
    t.confidence, t.calibration_basis, t.calibration_factor, t.error_p50, t.error_p90,
    q.observed_at as price_observed_at, q.source as price_source, q.source_ref as price_source_ref,
    p.topology_id, p.quote_id
from query_table(pairs) p
join topology_estimate t on t.topology_id = p.topology_id
join price_option q on q.quote_id = p.quote_id;
