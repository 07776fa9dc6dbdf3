-- Delete a load window's earlier rows, up to up_to if given. Params: payloads, source, day, up_to x2. Parts: table, dated.
delete from {table} where (payload in (select unnest(?::varchar[]))
    or (payload is null and source = ? and try_cast(left(run_id, 10) as date) = ?))
    and (?::date is null or {dated} is null or {dated} <= ?::date)
