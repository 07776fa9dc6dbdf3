-- grain: one row per run_date x quote_id
-- The quotes the night's options were priced with (night_option_pair), once each.
create table if not exists night_quote (
    run_date date,
    quote_id bigint,           -- the night's own numbering (price_option.quote_id that night)
    provider varchar,
    region varchar,
    zone varchar,
    instance_type varchar,
    pricing varchar,
    gpus_per_instance double,
    usd_per_instance_hour double,
    usd_per_gpu_hour double,
    price_observed_at date,
    price_source varchar,
    price_source_ref varchar
);

delete from night_quote where night_snapshot_wanted() and run_date = night_run_date();
insert into night_quote by name
select
    night_run_date() as run_date,
    q.quote_id, q.provider, q.region, q.zone, q.instance_type, q.pricing, q.gpus_per_instance,
    q.usd_per_instance_hour, q.usd_per_gpu_hour,
    q.observed_at as price_observed_at, q.source as price_source, q.source_ref as price_source_ref
from price_option q
where night_snapshot_wanted()
  and q.quote_id in (select quote_id from night_option_pair where run_date = night_run_date());
