-- grain: one row per gpu x pricing
-- Marts people query by hand and the report reads.

-- Cheapest price per GPU-hour tonight, per accelerator and pricing model.
create or replace view cheapest_per_gpu as
select * exclude (rank)
from (
    select gpu, pricing, provider, region, instance_type, gpus_per_instance, usd_per_instance_hour,
           usd_per_gpu_hour, observed_at, source,
           row_number() over (partition by gpu, pricing order by usd_per_gpu_hour, provider) as rank
    from price_option
)
where rank = 1;
