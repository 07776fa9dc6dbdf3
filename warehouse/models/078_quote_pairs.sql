-- grain: a macro, one row per feasible topology_id x quote_id (a row of its input `quotes` that can realise it)
-- quote_pairs(quotes): every feasible topology with every quote of the table named `quotes`
-- (price_option, or price_group's one quote per group of quotes alike) that can realise it, on
-- the quote's own basis (on-demand, spot, reserved, owned: never mixed), narrow: the ids of the
-- two and what the pair costs. One home for these rules, for estimate_pair and estimate_best.
-- A layout is realised only by instances that provide it:
--   - each instance holds the GPUs that share the scale-up link (instance_holds);
--   - a deployment wider than one instance needs whole nodes (they carry the platform's
--     network) from a provider that links its instances (provider_capacity.interconnect not
--     'none'; unknown is allowed and said), or trays of one rack-scale NVLink domain (NVL72);
--   - the GPUs asked for fit the largest cluster the provider advertises (unknown: said).
-- You pay for whole instances. A serving job with a demand is priced as its fleet
-- (topology_estimate.deployments). Spot capacity can be reclaimed: a job on it pays a stated
-- share of extra time for checkpoint restarts.
create or replace macro quote_pairs(quotes) as table
with realised as (
    select
        t.topology_id, q.quote_id, t.workload_id, t.platform_id, t.n_gpus, t.kind, t.time_to_finish_h,
        q.pricing, q.provider, q.region, q.zone, q.instance_type, q.source as price_source,
        q.source_ref as price_source_ref, q.usd_per_instance_hour,
        -- deployments (serving replicas) that fit one instance pack into instances; a wider
        -- one takes whole instances of its own
        -- (a disaggregated fleet's prefill GPUs are replicas too)
        case when t.unit_gpus <= q.gpus_per_instance then ceil(t.fleet_gpus / q.gpus_per_instance)
             else (t.deployments + t.prefill_gpus // t.unit_gpus) * ceil(t.unit_gpus / q.gpus_per_instance) end
            as instances,
        case when q.pricing = 'spot' and t.kind <> 'serving' then 1 + assume('spot_restart_overhead') else 1.0 end
            as time_factor
    from topology_estimate t
    join query_table(quotes) q
      on q.gpu = t.gpu_id
     and (q.platform_id is null or q.platform_id = t.platform_id)
     and instance_holds(q.gpus_per_instance, t.scaleup_group, t.unit_gpus, t.scaleup_domain_gpus)
     and (t.unit_gpus <= q.gpus_per_instance
          or ((q.gpus_per_instance >= t.node_gpus or t.scaleup_domain_gpus > 8)
              and q.interconnect <> 'none'))
     and coalesce(q.capacity_gpus >= t.fleet_gpus, true)
    where t.fits and t.tokens_per_s > 0
)
select
    topology_id, quote_id, workload_id, platform_id, n_gpus, pricing,
    provider, region, zone, instance_type, price_source, price_source_ref,
    instances, time_factor,
    instances * usd_per_instance_hour * time_to_finish_h * time_factor as usd_total
from realised;
