-- grain: one row per job workload x platform x pricing
-- platform_choice: per job, platform and price basis, the option to take: the cheapest (a
-- deployment wider than one instance on a provider that publishes no cluster size only where
-- nothing surer exists; ties: the faster, then GPU count and provider). Buying
-- states the utilisation at which it beats renting the same layout on-demand: the owned cost
-- at full use over the cheapest on-demand price per hour of that layout (the owned price
-- carries ownership_utilization). `gpucalc compare --platforms` reads it.
create or replace table platform_choice as
with options as (
    -- ranked on the columns the choice reads, and whole rows built for the winners' pairs
    -- after (docs/scale.md); the purpose is looked up per row,
    -- because a join would hash this night's options, which the planner sees as empty, not
    -- the workloads
    select topology_id, quote_id, workload_id, platform_id, pricing, n_gpus, cluster_unknown, usd_total,
           time_to_finish_h, provider, usd_per_hour
    from estimate_best e
    where workload_purpose((select w.purpose from workload w where w.workload_id = e.workload_id)) = 'job'
),
winner as (
    select unnest(arg_min({topology_id: topology_id, quote_id: quote_id},
                          (cluster_unknown, rank_figure(usd_total), rank_figure(time_to_finish_h), n_gpus, provider)))
    from options
    group by workload_id, platform_id, pricing
),
cheapest as (
    select * exclude (topology_id, quote_id) from estimate_best_rows('winner')
),
on_demand_rate as (
    select workload_id, platform_id, n_gpus, min(usd_per_hour) as rent_usd_per_hour
    from options where pricing = 'on_demand' group by all
)
select
    c.*,
    c.usd_total / d.usd_total as cost_vs_on_demand,
    case when c.pricing = 'owned' then c.usd_per_hour * assume('ownership_utilization') / r.rent_usd_per_hour end
        as break_even_utilization
from cheapest c
left join cheapest d on d.workload_id = c.workload_id and d.platform_id = c.platform_id and d.pricing = 'on_demand'
left join on_demand_rate r
  on r.workload_id = c.workload_id and r.platform_id = c.platform_id and r.n_gpus = c.n_gpus;
