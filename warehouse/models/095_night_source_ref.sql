-- grain: one row per run_date x input x source x source_ref
-- Where every input of the night came from: each price and benchmark source reference with its
-- rows, and each reference the catalog tables cite (their `source` columns list several,
-- separated by ';').
create table if not exists night_source_ref (
    run_date date,
    run_id varchar,
    input varchar,        -- price_quote | benchmark_result | catalog: <table>
    source varchar,
    source_ref varchar,
    rows bigint,
    first_date date,      -- observed (prices) or measured (benchmarks): the earliest and latest
    last_date date
);

delete from night_source_ref where night_snapshot_wanted() and run_date = night_run_date();
insert into night_source_ref by name
with catalog as (
    select 'gpu' as tbl, source from gpu
    union all select 'platform', source from platform
    union all select 'model', source from model
    union all select 'workload', source from workload
    union all select 'api_price', source from api_price
    union all select 'efficiency_default', source from efficiency_default
    union all select 'stage_efficiency_default', source from stage_efficiency_default
    union all select 'assumption', source from assumption
),
catalog_refs as (
    select tbl, trim(unnest(string_split(source, ';'))) as ref from catalog where source is not null
),
refs as (
    select 'price_quote' as input, source, source_ref, count(*) as rows,
           min(observed_at) as first_date, max(observed_at) as last_date
    from price_quote where observed_at <= night_run_date()
    group by all
    union all
    select 'benchmark_result', source, source_ref, count(*), min(measured_at), max(measured_at)
    from benchmark_result group by all
    union all
    select 'catalog: ' || tbl, 'bundled_catalog', ref, count(*), null, null
    from catalog_refs where ref <> '' group by all
)
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    input, source, source_ref, rows, first_date, last_date
from refs
where night_snapshot_wanted();
