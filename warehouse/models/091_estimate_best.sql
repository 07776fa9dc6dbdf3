-- estimate_best: the cheapest quote per workload x platform x GPU count x price basis, ranked
-- over the narrow pairs (one hash aggregate) and built as full rows for the winners only.
-- Ties go to the first provider, region, zone, instance, source and reference by name, so two
-- runs on the same data keep the same row. Pareto, estimate_daily, the marts and the night's
-- snapshot read these rows, not the estimate rows again.
create or replace temp table estimate_best_pair as
select unnest(arg_min(p, (p.usd_total, p.provider, coalesce(p.region, ''), coalesce(p.zone, ''),
                          coalesce(p.instance_type, ''), coalesce(p.price_source, ''),
                          coalesce(p.price_source_ref, ''))))
from estimate_pair p
group by p.workload_id, p.platform_id, p.n_gpus, p.pricing;

create or replace table estimate_best as
select * from estimate_rows('estimate_best_pair');
