-- The wide table's rows, each numbered by its topology and its quote: rows alike in every
-- topology (quote) column share a number within their night; the ranks treat nulls as alike,
-- as a night's rows of one topology hold the same nulls (the parts: the topology's and the
-- quote's columns the table has).
create or replace temp table night_option_numbered as
select *,
       dense_rank() over (partition by run_date order by run_id, {topology}) as topology_id,
       dense_rank() over (partition by run_date order by {quote}) as quote_id
from night_option
