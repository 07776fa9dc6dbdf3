-- grain: one row per workload x platform x n_gpus x pricing on its workload x pricing's time/cost frontier
-- Per workload and price basis (bases are never mixed), options no other option beats on both
-- time and cost: an option is dominated when a faster one costs no more, or one no slower
-- costs less, i.e. two running minima of cost over the options in order of time (one sort per
-- workload and basis, not a comparison of pairs). The sort carries only what it compares and
-- the option's pair ids; whole rows are built for the frontier alone (estimate_best_rows): a
-- window holds every column it is given (docs/scale.md).
create or replace table pareto as
with ranked as (
    -- costs and times as the marts compare them (rank_figure): equal to 9 significant digits is equal
    select topology_id, quote_id, workload_id, pricing,
           rank_figure(usd_total) as usd, rank_figure(time_to_finish_h) as hours
    from estimate_best
),
running as (
    select
        topology_id, quote_id, usd,
        min(usd) over (partition by workload_id, pricing order by hours
                       range between unbounded preceding and current row exclude group) as usd_faster,
        min(usd) over (partition by workload_id, pricing order by hours
                       range between unbounded preceding and current row) as usd_as_fast
    from ranked
),
frontier as (
    select topology_id, quote_id from running
    where not (coalesce(usd_faster <= usd, false) or usd_as_fast < usd)
)
select * exclude (topology_id, quote_id) from estimate_best_rows('frontier');
