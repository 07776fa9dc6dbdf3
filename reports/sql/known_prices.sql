-- Every quote-day price the night knew, its latest snapshot's figures. Params: run_date. Part quote_key: QUOTE_KEY.
with known as (
    select {quote_key}, observed_at,
           arg_max({gpu: gpu, gpus_per_instance: gpus_per_instance,
                    usd_per_instance_hour: usd_per_instance_hour, usd_per_gpu_hour: usd_per_gpu_hour,
                    source_ref: source_ref}, run_date) as p
    from night_price_point where run_date <= ? group by all
)
select {quote_key}, observed_at, unnest(p)
from known where p.usd_per_gpu_hour is not null
order by {quote_key}, observed_at
