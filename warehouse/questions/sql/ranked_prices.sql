-- `gpucalc sources`: per price source, how many of the quotes the newest night knew it ranked and
-- how many were stale (latest_quote; a marketplace's lowest listing ranks nowhere, as in
-- price_option), with the newest quote's date; one row per source that has any.
select source,
       count(*) filter (where not stale and coalesce(price_statistic, 'list') <> 'lowest') as ranked,
       count(*) filter (where stale) as stale,
       max(observed_at) as newest
from latest_quote
group by source
order by source
