-- The prices an estimate can use tonight: the latest observation of every quote up to the
-- run date, plus ownership as a price (capex amortised + power x PUE + colocation).

create or replace view latest_price as
select * exclude (rank)
from (
    select q.*,
           row_number() over (partition by source, provider, region, zone, instance_type, pricing
                              order by observed_at desc, extracted_at desc) as rank
    from price_quote q
    where observed_at <= (select run_date from run_context)
)
where rank = 1;

create or replace table price_option as
select null::varchar as platform_id,  -- a market quote fits any platform built from its GPU
       provider, region, zone, instance_type, gpu, gpus_per_instance, usd_per_instance_hour,
       usd_per_gpu_hour, pricing, observed_at, source, source_ref
from latest_price
union all
select
    p.platform_id,                    -- owning prices exactly that system
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
        as source_ref
from platform p
where p.capex_usd_per_node > 0 and p.node_power_kw > 0;
