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

-- The cheapest quote per workload x platform x GPU count x pricing: one hash aggregate
-- (arg_min) over the estimate rows instead of a window that sorts all of them. Pareto and
-- estimate_daily read these rows, not the estimate rows again.
create or replace table estimate_best as
select unnest(arg_min(e, (e.usd_total, e.provider)))
from estimate e
group by e.workload_id, e.platform_id, e.n_gpus, e.pricing;

-- Per workload, options no other option beats on both time and cost: an option is dominated
-- when a faster one costs no more, or one no slower costs less, i.e. two running minima of
-- cost over the options in order of time (one sort per workload, not a comparison of pairs).
create or replace table pareto as
with frontier as (
    select
        *,
        min(usd_total) over (partition by workload_id order by time_to_finish_h
                             range between unbounded preceding and current row exclude group) as usd_faster,
        min(usd_total) over (partition by workload_id order by time_to_finish_h
                             range between unbounded preceding and current row) as usd_as_fast
    from estimate_best
)
select * exclude (usd_faster, usd_as_fast)
from frontier
where not (coalesce(usd_faster <= usd_total, false) or usd_as_fast < usd_total);

-- Tonight's best option per workload x platform x pricing, kept day by day so the report
-- can say what changed since yesterday.
delete from estimate_daily where run_date = (select run_date from run_context);
insert into estimate_daily by name
select unnest(arg_min(
    {run_id: run_id, run_date: run_date, workload_id: workload_id, platform_id: platform_id, pricing: pricing,
     n_gpus: n_gpus, layout: layout, bottleneck: bottleneck, tokens_per_s: tokens_per_s,
     time_to_finish_h: time_to_finish_h, usd_total: usd_total, usd_per_mtok: usd_per_mtok, provider: provider,
     region: region, instance_type: instance_type, confidence: confidence},
    (usd_total, time_to_finish_h, provider)))
from estimate_best
group by workload_id, platform_id, pricing;

-- The managed-API baseline for every serving workload: what a provider charges per million
-- OUTPUT tokens once the workload's input tokens are paid for too, next to tonight's cheapest
-- self-hosted or rented option for the same workload.
create or replace view api_baseline as
with self_hosted as (
    select workload_id, min(usd_per_mtok) as best_usd_per_mtok
    from estimate_best where kind = 'serving' group by workload_id
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
