-- grain: one row per feasible topology_id x quote_id pair
-- estimate: every feasible topology priced with every quote that can realise it, one full row
-- per pair (estimate_pair: which pairs and why; estimate_rows: the columns).
create or replace view estimate as
select * from estimate_rows('estimate_pair');
