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

-- Per workload, options no other option beats on both time and cost.
create or replace table pareto as
with best as (
    select * exclude (rank)
    from (
        select *, row_number() over (partition by workload_id, platform_id, n_gpus, pricing
                                     order by usd_total, provider) as rank
        from estimate
    ) where rank = 1
)
select b.*
from best b
where not exists (
    select 1 from best o
    where o.workload_id = b.workload_id
      and o.time_to_finish_h <= b.time_to_finish_h and o.usd_total <= b.usd_total
      and (o.time_to_finish_h < b.time_to_finish_h or o.usd_total < b.usd_total)
);

-- Tonight's best option per workload x platform x pricing, kept day by day so the report
-- can say what changed since yesterday.
delete from estimate_daily where run_date = (select run_date from run_context);
insert into estimate_daily by name
select run_id, run_date, workload_id, platform_id, pricing, n_gpus, layout, bottleneck, tokens_per_s,
       time_to_finish_h, usd_total, usd_per_mtok, provider, region, instance_type, confidence
from (
    select *, row_number() over (partition by workload_id, platform_id, pricing
                                 order by usd_total, time_to_finish_h, provider) as rank
    from estimate
) where rank = 1;

-- The managed-API baseline for every serving workload: what a provider charges per million
-- OUTPUT tokens once the workload's input tokens are paid for too, next to tonight's cheapest
-- self-hosted or rented option for the same workload.
create or replace view api_baseline as
with self_hosted as (
    select workload_id, min(usd_per_mtok) as best_usd_per_mtok
    from estimate where kind = 'serving' group by workload_id
)
select
    w.workload_id, a.provider, a.usd_per_mtok_input, a.usd_per_mtok_output,
    a.usd_per_mtok_output + a.usd_per_mtok_input * w.input_len / w.output_len as api_usd_per_mtok_output,
    s.best_usd_per_mtok as self_hosted_usd_per_mtok,
    a.observed_at, a.source, a.note
from workload w
join api_price a using (model_id)
left join self_hosted s using (workload_id)
where w.kind = 'serving';
