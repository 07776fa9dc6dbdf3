-- grain: one row per job workload x choice x pick
-- decision: what to do for each job, one row per choice, each on its own price basis (never
-- the cheapest of several bases mixed): rent on-demand (the fastest and the cheapest option),
-- rent spot, rent reserved, buy, and for serving the managed API. Buying states the
-- utilisation at which it beats renting the same layout on-demand: the owned cost at full
-- use over the on-demand price per hour (the owned price carries ownership_utilization).
-- A deployment wider than one instance on a provider that publishes no cluster size wins
-- only where nothing surer exists. Ties go to the cheaper, then
-- the faster option, then platform, GPU count and provider.
create or replace table decision as
with jobs as (
    select workload_id from workload where workload_purpose(purpose) = 'job'
),
choice as (
    select
        p.*,
        case when p.pricing = 'on_demand' then 'rent on-demand'
             when p.pricing = 'spot' then 'rent spot'
             when p.pricing like 'reserved%' then 'rent reserved'
             when p.pricing = 'owned' then 'buy' end as choice
    from platform_choice p
),
fastest as (
    -- the fastest on-demand option of any platform, ranked on what it compares (its row built
    -- after: estimate_best_rows)
    select unnest(arg_min({topology_id: o.topology_id, quote_id: o.quote_id},
                          (o.cluster_unknown, rank_figure(o.time_to_finish_h), rank_figure(o.usd_total), o.platform_id, o.n_gpus,
                           o.provider)))
    from estimate_best o
    join jobs using (workload_id)
    where o.pricing = 'on_demand' and o.kind <> 'serving'  -- a serving fleet's pace is its demand's
    group by o.workload_id
),
picked as (
    -- per basis the cheapest platform's choice; on-demand also the fastest option of any platform
    select unnest(arg_min(c, (c.cluster_unknown, rank_figure(c.usd_total), rank_figure(c.time_to_finish_h), c.platform_id, c.n_gpus,
                              c.provider))), 'cheapest' as pick
    from choice c
    group by c.workload_id, c.choice
    union all by name
    select * exclude (topology_id, quote_id), 'rent on-demand' as choice, 'fastest' as pick
    from estimate_best_rows('fastest')
),
cheapest_on_demand as (
    select workload_id, usd_total from picked where choice = 'rent on-demand' and pick = 'cheapest'
),
measured as (
    -- a job someone has run and measured (the first seed's workstation): the baseline row,
    -- priced as owning that very system where the catalog can price it
    select
        c.workload_id, c.platform_id, c.gpu_id, c.gpu_count, c.layout,
        c.measured_per_gpu * c.gpu_count as tokens_per_s,
        w.total_tokens / (c.measured_per_gpu * c.gpu_count) / 3600.0 as time_to_finish_h,
        o.usd_per_instance_hour * ceil(c.gpu_count / o.gpus_per_instance) as usd_per_hour,
        c.source, c.measured_at
    from calibration_point c
    join workload w using (workload_id)
    join jobs using (workload_id)
    left join price_option o on o.platform_id = c.platform_id and o.pricing = 'owned'
    where c.latest
    qualify row_number() over (partition by c.workload_id
                               order by c.measured_at desc, c.source, c.source_ref, c.source_row) = 1
)
select
    p.workload_id, p.choice, p.pick, p.pricing, p.platform_id, p.gpu_id, p.n_gpus, p.fleet_gpus, p.layout,
    p.unit_gpus, p.deployments, p.fleet_utilization,
    p.provider, p.region, p.instance_type, p.instances, p.tokens_per_s, p.token_unit,
    p.time_to_finish_h, p.usd_per_hour, p.usd_total, p.usd_per_mtok, p.bottleneck,
    p.confidence, p.error_p50, p.error_p90, p.basis_note, p.capacity_note,
    p.usd_total / c.usd_total as cost_vs_on_demand,
    p.break_even_utilization,
    null::double as api_usd_per_mtok_output,
    null::date as api_observed_at,
    p.price_observed_at, p.price_source
from picked p
left join cheapest_on_demand c on c.workload_id = p.workload_id
union all by name
select
    m.workload_id, 'measured run' as choice, 'baseline' as pick, 'owned' as pricing, m.platform_id, m.gpu_id,
    m.gpu_count as n_gpus, m.gpu_count as fleet_gpus, m.layout, 'self-hosted' as provider,
    m.tokens_per_s, m.time_to_finish_h, m.usd_per_hour, m.usd_per_hour * m.time_to_finish_h as usd_total,
    usd_per_mtok(m.usd_per_hour, m.tokens_per_s) as usd_per_mtok,
    'measured' as confidence,
    'measured (' || m.source || ', ' || m.measured_at || ')'
        || case when m.usd_per_hour is null then ', a system the catalog has no ownership cost for'
                else ', priced as owning that system' end as basis_note
from measured m
union all by name
select
    a.workload_id, 'managed API' as choice, 'cheapest' as pick, 'api' as pricing, a.provider,
    a.api_usd_per_mtok_output as usd_per_mtok,
    a.api_usd_per_mtok_output, a.observed_at as api_observed_at,
    'API price per million output tokens, input tokens included at the workload''s input/output ratio' as basis_note
from api_baseline a
join jobs using (workload_id)
qualify row_number() over (partition by a.workload_id order by a.api_usd_per_mtok_output, a.provider) = 1;
