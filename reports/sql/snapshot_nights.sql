-- Every night that kept a snapshot, with its latest run_log row. No params: callers append where / order by.
select n.run_date, n.run_id, r.mode, r.status, r.started_at, r.finished_at, r.duration_s, r.price_rows,
       r.benchmark_rows, r.rejected_rows, r.estimate_rows, r.sources_failed
from night_run n
left join (select * from run_log qualify row_number() over (partition by run_id order by started_at desc) = 1) r
  on r.run_id = n.run_id
