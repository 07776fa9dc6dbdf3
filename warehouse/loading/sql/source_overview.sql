-- Per source: last fetch, last good load and its rows, latest status, stale, unresolved GPU rows. Params: stale_before.
with status as (
    select source,
           max(run_date) filter (where status = 'ok') as last_ok,
           arg_max(rows_loaded, checked_at) filter (where status = 'ok') as rows_loaded,
           arg_max(rows_rejected, checked_at) filter (where status = 'ok') as rows_rejected,
           arg_max(status, checked_at) as last_status,
           arg_max(message, checked_at) as last_message
    from source_status group by source
),
payloads as (
    select source, max(fetched_at) as last_fetch, count(*) as payloads
    from raw_payload group by source
),
last_load as (
    select source, arg_max(run_id, checked_at) as run_id
    from source_status where status = 'ok' group by source
),
unknown_gpu as (  -- rows of the last good load rejected because their GPU name did not resolve
    select r.source, count(distinct (r.payload, r.source_row)) as rows
    from rejected_row r join last_load l on l.source = r.source and l.run_id = r.run_id
    where r.rule = 'unknown_gpu' group by r.source
)
select coalesce(s.source, p.source) as source, p.last_fetch, p.payloads, s.last_ok,
       s.rows_loaded, s.rows_rejected, s.last_status, s.last_message,
       s.last_ok is null or s.last_ok < ? as stale,
       coalesce(u.rows, 0) as unknown_gpu_rows,
       coalesce(u.rows, 0) / nullif(s.rows_loaded + coalesce(u.rows, 0), 0) as unknown_gpu_share
from status s full join payloads p on p.source = s.source
left join unknown_gpu u on u.source = coalesce(s.source, p.source)
order by source
