-- `gpucalc prices GPU`: the quotes the newest night knew for one accelerator (latest_quote: the
-- latest observation of every quote up to the night, a marketplace's lowest listing included
-- and marked, a stale one included and marked: it ranks nowhere; age_days: the night's date
-- minus the day observed), and the owned price of each platform built from it (price_option),
-- fresh before stale, cheapest per GPU-hour first. ?: the accelerator and the price bases,
-- twice (quotes, then owned).
select provider, instance_type, gpus_per_instance, usd_per_gpu_hour, usd_per_instance_hour, pricing,
       coalesce(price_statistic, 'list') as price_statistic, region, zone, observed_at,
       (select run_date from run_context) - observed_at as age_days, stale, judged_on,
       source, source_ref
from latest_quote
where gpu = ? and list_contains(?, pricing)
union all
select provider, instance_type, gpus_per_instance, usd_per_gpu_hour, usd_per_instance_hour, pricing,
       'list' as price_statistic, region, zone, observed_at,
       (select run_date from run_context) - observed_at as age_days, false as stale,
       observed_at as judged_on, source, source_ref
from price_option
where pricing = 'owned' and gpu = ? and list_contains(?, pricing)
order by stale, usd_per_gpu_hour, provider, instance_type, region, pricing
