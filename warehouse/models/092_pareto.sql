-- Per workload and price basis (bases are never mixed), options no other option beats on both
-- time and cost: an option is dominated when a faster one costs no more, or one no slower
-- costs less, i.e. two running minima of cost over the options in order of time (one sort per
-- workload and basis, not a comparison of pairs).
create or replace table pareto as
with frontier as (
    select
        *,
        min(usd_total) over (partition by workload_id, pricing order by time_to_finish_h
                             range between unbounded preceding and current row exclude group) as usd_faster,
        min(usd_total) over (partition by workload_id, pricing order by time_to_finish_h
                             range between unbounded preceding and current row) as usd_as_fast
    from estimate_best
)
select * exclude (usd_faster, usd_as_fast)
from frontier
where not (coalesce(usd_faster <= usd_total, false) or usd_as_fast < usd_total);
