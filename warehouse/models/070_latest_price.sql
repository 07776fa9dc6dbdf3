-- grain: one row per quote: source x provider x region x zone x instance_type x pricing
-- latest_quote: the latest observation of every quote up to the run date, with the day its
-- freshness is judged on and its age that day. The rule: a quote is judged on the night's date,
-- but a bundled snapshot row (source 'bundled_snapshot') is the market as of the snapshot's date
-- (run_context.snapshot_date, sources/bundled SNAPSHOT_DATE; the night's, if earlier), so an
-- offline night ranks the snapshot yet not the snapshot's own older rows. A quote more than
-- assume('price_fresh_days') days old on its judged_on day is stale (no such assumption: none is).
-- latest_price: the fresh ones, the only quotes that price anything (price_option adds ownership
-- as a price and what each provider can realise). stale_price: the stale ones, listed, ranked nowhere.

create or replace view latest_quote as
select *, judged_on - observed_at as age_days,
       coalesce(judged_on - observed_at > assume('price_fresh_days'), false) as stale
from (
    select q.* exclude (rank),
           case when q.source = 'bundled_snapshot'
                then least(c.run_date, coalesce(c.snapshot_date, c.run_date))
                else c.run_date end as judged_on
    from (
        select q.*,
               row_number() over (partition by source, provider, region, zone, instance_type, pricing
                                  order by observed_at desc, extracted_at desc) as rank
        from price_quote q
        where observed_at <= (select run_date from run_context)
    ) q
    cross join run_context c
    where q.rank = 1
);

create or replace view latest_price as
select * exclude (judged_on, age_days, stale) from latest_quote where not stale;

create or replace view stale_price as
select * exclude (stale) from latest_quote where stale;
