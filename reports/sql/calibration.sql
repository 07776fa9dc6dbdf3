-- Per workload x accelerator: the calibration used, the platforms and GPU counts it covers. Params: run_date.
select workload_id, gpu_id, level, factor, basis, points, confidence,
       string_agg(distinct platform_id, ', ' order by platform_id) as platforms,
       string_agg(distinct cast(n_gpus as varchar), ', ' order by cast(n_gpus as varchar)) as gpu_counts
from night_calibration where run_date = ?
group by workload_id, gpu_id, level, factor, basis, points, confidence
order by workload_id, gpu_id, level, factor, basis
