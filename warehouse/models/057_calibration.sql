-- grain: one row per level x workload_id x gpu_id x gpu_count x family x kind (the level's keys; null = any)
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
anti join holdout_gpu h on h.gpu_id = point_gpu
group by all;
