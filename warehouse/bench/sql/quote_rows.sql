-- Estimate rows per market quote (0 for a quote whose GPU no platform carries), the quotes
-- numbered in the order of their key (`key`, `quote_order`: its columns; `same_quote`: the
-- two keys are equal).
create or replace temp table bench_quote_rows as
select q.*, coalesce(e.rows, 0) as rows, row_number() over (order by {quote_order}) as quote_no
from (select distinct {key} from price_quote) q
left join (
    select price_source as source, provider, region, zone, instance_type, pricing, count(*) as rows
    from estimate group by all
) e on {same_quote}
