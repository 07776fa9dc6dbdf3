-- grain: one row per run_date x source x target_table x rule x gpu_name (null but for unknown_gpu)
-- What the night's run rejected, per source, table and rule (rejected_row keeps every row; a
-- later reload of a payload replaces its rejects there, not here).
create table if not exists night_rejected (
    run_date date,
    run_id varchar,
    source varchar,
    target_table varchar,
    rule varchar,
    gpu_name varchar,     -- unknown_gpu: the spelling that did not resolve
    rows bigint,          -- rejections (a row can break a rule once per quote it yields)
    source_rows bigint,   -- distinct rows of the payloads
    example varchar       -- the first detail in sort order
);

delete from night_rejected where night_snapshot_wanted() and run_date = night_run_date();
insert into night_rejected by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    source, target_table, rule,
    case when rule = 'unknown_gpu' then json_extract_string(row_json, '$.gpu_name') end as gpu_name,
    count(*) as rows,
    count(distinct (payload, source_row)) as source_rows,
    min(detail) as example
from rejected_row
where run_id = night_run_id() and night_snapshot_wanted()
group by all;
