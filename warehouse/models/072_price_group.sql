-- grain: one row per gpu x platform_id x gpus_per_instance x pricing x (interconnect = 'none') x capacity_gpus
-- price_group: the quotes every topology judges alike, one row each: the same GPU, platform (or
-- any), GPUs per instance, basis, whether instances can be linked, and advertised cluster size.
-- Those are all a quote's fields that decide which topologies it can realise, how many
-- instances they take and the time factor (estimate_pair), so within a group the quote cheaper
-- per instance-hour is the cheaper one for every topology: the group's row is its cheapest
-- (ties: quote_id order, as in estimate_best), with `quotes`, how many it stands for.
-- estimate_best ranks these rows instead of every quote, far fewer pairs (docs/scale.md).
create or replace table price_group as
select unnest(arg_min(q, (q.usd_per_instance_hour, q.quote_id))), count(*) as quotes
from price_option q
group by q.gpu, q.platform_id, q.gpus_per_instance, q.pricing, q.interconnect = 'none', q.capacity_gpus;
