-- grain: one row per run_date x quote (source x provider x region x zone x instance_type x pricing) x observed_at
-- The price history each night knew, kept as changes: a row for every quote-day observation
-- (observed_at <= the night) that is new or different since the earlier nights' rows, and a
-- row with null prices for one that has gone (a reload replaced it). The prices night D knew
-- are, per quote and observed day, the row of the latest run_date <= D whose price is not
-- null. Storing changes, not copies, keeps it the size of price_quote; a backfill of an old
-- day shows up from the next night on and never changes what an earlier night showed.
create table if not exists night_price_point (
    run_date date,
    run_id varchar,
    source varchar,
    provider varchar,
    region varchar,
    zone varchar,
    instance_type varchar,
    pricing varchar,
    observed_at date,
    gpu varchar,
    gpus_per_instance double,
    usd_per_instance_hour double,
    usd_per_gpu_hour double,  -- null: the observation is no longer in price_quote
    source_ref varchar
);

delete from night_price_point where night_snapshot_wanted() and run_date = night_run_date();
insert into night_price_point by name
with tonight as (  -- one row per quote and observed day: the latest load of it, as latest_price picks
    select {source: source, provider: provider, region: region, zone: zone, instance_type: instance_type,
            pricing: pricing, observed_at: observed_at} as quote,
           arg_max({gpu: gpu, gpus_per_instance: gpus_per_instance, usd_per_instance_hour: usd_per_instance_hour,
                    usd_per_gpu_hour: usd_per_gpu_hour, source_ref: source_ref}, extracted_at) as price
    from price_quote
    where observed_at <= night_run_date() and night_snapshot_wanted()
    group by all
),
known as (  -- what the earlier nights knew
    select {source: source, provider: provider, region: region, zone: zone, instance_type: instance_type,
            pricing: pricing, observed_at: observed_at} as quote,
           arg_max({gpu: gpu, gpus_per_instance: gpus_per_instance, usd_per_instance_hour: usd_per_instance_hour,
                    usd_per_gpu_hour: usd_per_gpu_hour, source_ref: source_ref}, run_date) as price
    from night_price_point
    where run_date < night_run_date() and night_snapshot_wanted()
    group by all
),
changed as (
    select coalesce(t.quote, k.quote) as quote,
           case when t.quote is null
                then {gpu: k.price.gpu, gpus_per_instance: k.price.gpus_per_instance, usd_per_instance_hour: null,
                      usd_per_gpu_hour: null, source_ref: k.price.source_ref}
                else t.price end as price
    from tonight t
    full join known k on k.quote is not distinct from t.quote
    where t.price is distinct from k.price
      and not (t.quote is null and k.price.usd_per_gpu_hour is null)  -- gone, and already recorded so
)
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    unnest(quote),
    unnest(price)
from changed;
