-- calibration: the factor of every level and key: the geometric mean of its points' ratios.
-- `as_deployed`: every point was compared with a deployment of exactly its GPU count (not so
-- for a 16-GPU serving result compared as 8-GPU systems); the measured level vouches for an
-- estimate of that count only then.
create or replace table calibration as
select
    level, basis, workload_id, gpu_id, gpu_count, family, kind,
    geometric_mean(ratio) as factor,
    count(*) as points,
    min(ratio) as min_ratio,
    max(ratio) as max_ratio,
    bool_and(point_deployment_gpus = point_count) as as_deployed
from calibration_level
group by all;
