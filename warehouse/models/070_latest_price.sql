-- grain: one row per quote: source x provider x region x zone x instance_type x pricing
-- latest_price: the latest observation of every quote up to the run date (price_option adds
-- ownership as a price and what each provider can realise).

create or replace view latest_price as
select * exclude (rank)
from (
    select q.*,
           row_number() over (partition by source, provider, region, zone, instance_type, pricing
                              order by observed_at desc, extracted_at desc) as rank
    from price_quote q
    where observed_at <= (select run_date from run_context)
)
where rank = 1;
