-- grain (estimate_best_pair): one row per topology_id x pricing (a topology: workload x platform x n_gpus)
-- grain (estimate_best): one row per workload x platform x n_gpus x pricing
-- estimate_best: the cheapest quote per workload x platform x GPU count x price basis, ranked
-- over narrow pairs (one hash aggregate on numbers) and built as full rows for the winners
-- only. A topology is one workload x platform x GPU count (topology_estimate has one row per
-- such triple: the workload's own precision, one layout each), so the pairs are grouped by its
-- id rather than by the two names. Only each price_group's cheapest quote is paired: every
-- other quote of its group is dearer for every topology, so the winners are those of all the
-- pairs. Ties go to the first quote in quote_id order (provider, region, zone, instance, source
-- and reference by name; price_option), so two runs on the same data keep the same row.
-- `pairs`: how many estimate rows the winner was chosen from (a group's pair stands for as many
-- as the group has quotes); their sum is the number of estimate rows, which the rebuild reports
-- without evaluating the estimate view.
--
-- Stored are the winning pairs (estimate_best_pair, six numbers a row); estimate_best is their
-- full rows as a view, like `estimate`. The marts read from it only the columns they rank on
-- (the view computes no other) and build whole rows for the pairs they keep; the night's
-- snapshot, which keeps every row, builds them once. Storing the full rows, even as a
-- temporary table for the rebuild, costs more, since storing costs per cell (docs/scale.md).
create or replace table estimate_best_pair as
select unnest(arg_min(struct_pack(p.topology_id, p.quote_id, p.instances, p.time_factor, p.usd_total),
                      (p.usd_total, p.quote_id))),
       sum(g.quotes) as pairs
from quote_pairs('price_group') p
join price_group g on g.quote_id = p.quote_id
group by p.topology_id, p.pricing;

create or replace view estimate_best as
select * from estimate_rows('estimate_best_pair');
