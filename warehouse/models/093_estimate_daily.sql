-- grain (estimate_daily): one row per run_date x workload x platform x pricing (this file writes tonight's)
-- Tonight's best option per workload x platform x pricing, kept day by day so the report
-- can say what changed since yesterday. Ranked on the columns the choice compares; the
-- winners' rows built after (estimate_best_rows).
delete from estimate_daily where run_date = (select run_date from run_context);
insert into estimate_daily by name
with daily as (
    select unnest(arg_min({topology_id: topology_id, quote_id: quote_id},
                          -- a fleet sized to a demand costs the same from every system size it can
                          -- be built of: ties go to the fewest GPUs per system (estimate_best holds
                          -- one row per size)
                          (rank_figure(usd_total), rank_figure(time_to_finish_h), n_gpus, provider)))
    from estimate_best
    group by workload_id, platform_id, pricing
)
select run_id, run_date, workload_id, platform_id, pricing, n_gpus, layout, bottleneck, tokens_per_s,
       time_to_finish_h, usd_total, usd_per_mtok, provider, region, instance_type, confidence
from estimate_best_rows('daily');
