-- grain: one row per quote_id: a latest_price quote (no 'lowest' listing), or a platform's owned row
-- price_option: every price an estimate may use tonight, on its own basis (on_demand, spot,
-- reserved_1y, reserved_3y, owned), with what the provider can realise: the largest cluster
-- it advertises for the GPU and the interconnect between its instances (provider_capacity;
-- null: unknown). A marketplace's lowest listing is a floor nobody can count on, so it prices
-- nothing (it stays in price_quote and on the prices page). Owning prices exactly the system
-- bought, at as many systems as the job needs, with the platform's own network.
create or replace table price_option as
with options as (
select null::varchar as platform_id,  -- a market quote fits any platform built from its GPU
       q.provider, q.region, q.zone, q.instance_type, q.gpu, q.gpus_per_instance, q.usd_per_instance_hour,
       q.usd_per_gpu_hour, q.pricing, q.observed_at, q.source, q.source_ref,
       c.max_gpus as capacity_gpus,
       coalesce(c.interconnect, 'unknown') as interconnect
from latest_price q
left join provider_capacity c on lower(c.provider) = lower(q.provider) and c.gpu_id = q.gpu
where coalesce(q.price_statistic, 'list') <> 'lowest'
union all
select
    p.platform_id,
    'self-hosted' as provider, 'any' as region, null as zone,
    'own ' || p.name as instance_type, p.gpu_id as gpu, p.gpus_per_node as gpus_per_instance,
    owned_usd_per_hour(p.capex_usd_per_node, assume('ownership_years'), p.node_power_kw, assume('pue'),
                       assume('usd_per_kwh'), assume('colo_usd_per_kw_month'), assume('ownership_utilization'))
        as usd_per_instance_hour,
    owned_usd_per_hour(p.capex_usd_per_node, assume('ownership_years'), p.node_power_kw, assume('pue'),
                       assume('usd_per_kwh'), assume('colo_usd_per_kw_month'), assume('ownership_utilization'))
        / p.gpus_per_node as usd_per_gpu_hour,
    'owned' as pricing,
    (select run_date from run_context) as observed_at,
    'ownership_model' as source,
    'platform.capex_usd_per_node + assumption (ownership_years, pue, usd_per_kwh, colo, utilisation)'
        as source_ref,
    null as capacity_gpus,
    'owned' as interconnect
from platform p
where p.capex_usd_per_node > 0 and p.node_power_kw > 0
)
-- a stable id the estimate pairs refer to (estimate_pair, estimate_rows), in the order that
-- breaks ties between equally cheap quotes (estimate_best): by provider, region, zone,
-- instance, source and reference name, the missing ones first
select row_number() over (order by platform_id nulls first, provider, region nulls first, zone nulls first,
                                   instance_type nulls first, source nulls first, source_ref nulls first, pricing,
                                   gpu, usd_per_instance_hour) as quote_id, *
from options;
