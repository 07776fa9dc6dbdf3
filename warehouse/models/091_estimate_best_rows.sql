-- grain: a macro, one row per topology_id x quote_id pair of its input `kept` found in estimate_best_pair
-- estimate_best_rows(kept): the estimate_best rows of the pairs named in the table `kept`
-- (its topology_id and quote_id). A mart ranks on the few columns of estimate_best it compares
-- (the view computes no other) and builds whole rows for its winners only: building them for
-- every best option, or holding them for the rebuild, costs more than every mart's ranking
-- together (docs/scale.md).
create or replace macro estimate_best_rows(kept) as table
with kept_pair as (
    select b.*
    from estimate_best_pair b
    semi join query_table(kept) k on k.topology_id = b.topology_id and k.quote_id = b.quote_id
)
select * from estimate_rows('kept_pair');
