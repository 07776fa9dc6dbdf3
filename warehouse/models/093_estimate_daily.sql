-- Tonight's best option per workload x platform x pricing, kept day by day so the report
-- can say what changed since yesterday.
delete from estimate_daily where run_date = (select run_date from run_context);
insert into estimate_daily by name
select unnest(arg_min(
    {run_id: run_id, run_date: run_date, workload_id: workload_id, platform_id: platform_id, pricing: pricing,
     n_gpus: n_gpus, layout: layout, bottleneck: bottleneck, tokens_per_s: tokens_per_s,
     time_to_finish_h: time_to_finish_h, usd_total: usd_total, usd_per_mtok: usd_per_mtok, provider: provider,
     region: region, instance_type: instance_type, confidence: confidence},
    -- a fleet sized to a demand costs the same from every system size it can be built of:
    -- ties go to the fewest GPUs per system (estimate_best holds one row per size)
    (usd_total, time_to_finish_h, n_gpus, provider)))
from estimate_best
group by workload_id, platform_id, pricing;
