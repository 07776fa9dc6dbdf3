-- When each given payload was last kept under raw/ (no row: never kept there). Params: payload ids.
with kept as (  -- raw_store.payload_id, in SQL
    select source || '/' || strftime(run_date, '%Y-%m-%d') || '/' || name as payload, fetched_at
    from raw_payload
)
select payload, max(fetched_at) as kept_at
from kept where payload in (select unnest(?::varchar[]))
group by payload
