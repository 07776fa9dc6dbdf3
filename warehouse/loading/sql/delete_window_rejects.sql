-- Delete a load window's earlier rejects, up to up_to if given. Params: table, payloads, source, day, up_to x3. Part: dated.
delete from rejected_row where target_table = ?
    and (payload in (select unnest(?::varchar[]))
         or (payload is null and source = ? and run_date = ? and scope <> 'source_unusable'))
    and (?::date is null
         or coalesce(try_cast(json_extract_string(row_json, '$.{dated}') as date), ?::date) <= ?::date)
