-- Per source up to the night's finish: last good load, its rows, the night's status. Params: finished_at x2, run_id.
with seen as (select * from source_status where ? is null or checked_at <= ?),
history as (
    select source, max(run_date) filter (where status = 'ok') as last_ok,
           arg_max(rows_loaded, (checked_at, run_id)) filter (where status = 'ok') as rows_loaded
    from seen group by source
),
tonight as (
    select source, arg_max(status, checked_at) as tonight, arg_max(message, checked_at) as message
    from seen where run_id = ? group by source
)
select h.source, h.last_ok, h.rows_loaded, t.tonight, t.message
from history h left join tonight t using (source)
