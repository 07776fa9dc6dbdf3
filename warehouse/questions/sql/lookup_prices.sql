-- `gpucalc prices GPU`: the quotes the newest night ranked for one accelerator (latest_price: the
-- latest observation of every quote up to the night, a marketplace's lowest listing included
-- and marked), and the owned price of each platform built from it (price_option), cheapest per
-- GPU-hour first. ?: the accelerator and the price bases, twice (quotes, then owned).
select provider, instance_type, gpus_per_instance, usd_per_gpu_hour, usd_per_instance_hour, pricing,
       coalesce(price_statistic, 'list') as price_statistic, region, zone, observed_at,
       (select run_date from run_context) - observed_at as age_days, source, source_ref
from latest_price
where gpu = ? and list_contains(?, pricing)
union all
select provider, instance_type, gpus_per_instance, usd_per_gpu_hour, usd_per_instance_hour, pricing,
       'list' as price_statistic, region, zone, observed_at,
       (select run_date from run_context) - observed_at as age_days, source, source_ref
from price_option
where pricing = 'owned' and gpu = ? and list_contains(?, pricing)
order by usd_per_gpu_hour, provider, instance_type, region, pricing
