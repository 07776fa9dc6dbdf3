-- calibration: the factor of every level and key: the geometric mean of its points' ratios,
-- without the points of accelerators `gpucalc predict --holdout` holds out (holdout_gpu).
create or replace table calibration as
select
    level, basis, workload_id, gpu_id, gpu_count, family, kind,
    geometric_mean(ratio) as factor,
    count(*) as points,
    min(ratio) as min_ratio,
    max(ratio) as max_ratio
from calibration_level
where point_gpu not in (select gpu_id from holdout_gpu)
group by all;
