-- grain: one row per feasible topology_id x quote_id (a price_option quote that can realise it)
-- estimate_pair: every feasible topology with every quote that can realise it (quote_pairs:
-- which pairs qualify and what each costs), narrow: the ids of the two and the pair's cost. The
-- marts rank pairs and build full rows only for the ones they keep (estimate_rows); `estimate`
-- builds them for every pair.
create or replace view estimate_pair as
select * from quote_pairs('price_option');
