-- grain: one row per platform x pricing (the market bases: on_demand, spot, reserved_1y, reserved_3y)
-- platform_market: what tonight's market says a platform's GPU-hour costs on each basis, so a
-- price reads as a market and not as one provider's. Over the fresh quotes that can price the
-- platform (as in price_option: a market quote fits any platform built from its GPU, and a
-- marketplace's lowest listing prices nothing, so it counts nowhere): the cheapest, the median and
-- the dearest per GPU-hour with who quotes them, the spread (dearest over cheapest), how many
-- quotes and providers, and how thin it is: a single quote, a single provider, or providers'
-- published list prices only (no marketplace statistic among them). stale_quotes: the same GPU
-- and basis's stale quotes (stale_providers: whose), listed by `gpucalc prices` and counted
-- nowhere else; a basis with stale quotes only has a row with quotes = 0 and no price.
create or replace table platform_market as
with quote as (
    select gpu, pricing, provider, usd_per_gpu_hour, stale, coalesce(price_statistic, 'list') as statistic
    from latest_quote
    where coalesce(price_statistic, 'list') <> 'lowest'
),
market as (
    select
        gpu, pricing,
        count(*) filter (where not stale) as quotes,
        count(distinct provider) filter (where not stale) as providers,
        min(usd_per_gpu_hour) filter (where not stale) as cheapest_usd_per_gpu_hour,
        -- ties go to the provider first by name, so the same quotes always name the same provider
        arg_min(provider, (usd_per_gpu_hour, provider)) filter (where not stale) as cheapest_provider,
        median(usd_per_gpu_hour) filter (where not stale) as median_usd_per_gpu_hour,
        max(usd_per_gpu_hour) filter (where not stale) as max_usd_per_gpu_hour,
        arg_min(provider, (-usd_per_gpu_hour, provider)) filter (where not stale) as dearest_provider,
        bool_and(statistic = 'list') filter (where not stale) as list_prices_only,
        -- the statistic of a single quote, for saying what it is ("oci's list price")
        min(statistic) filter (where not stale) as statistic,
        count(*) filter (where stale) as stale_quotes,
        string_agg(distinct provider, ', ' order by provider) filter (where stale) as stale_providers
    from quote
    group by gpu, pricing
)
select
    p.platform_id, m.gpu as gpu_id, m.pricing, m.quotes, m.providers,
    m.cheapest_usd_per_gpu_hour, m.cheapest_provider, m.median_usd_per_gpu_hour,
    m.max_usd_per_gpu_hour, m.dearest_provider,
    m.max_usd_per_gpu_hour / m.cheapest_usd_per_gpu_hour as spread,
    m.quotes = 1 as single_quote, m.providers = 1 as single_provider,
    coalesce(m.list_prices_only, false) as list_prices_only,
    case when m.quotes = 1 then m.statistic end as single_quote_statistic,
    m.stale_quotes, m.stale_providers
from market m
join platform p on p.gpu_id = m.gpu;
