-- grain: one row per platform x n (GPU count)
-- GPU counts to enumerate: powers of two, whole nodes in powers of two, and every count a
-- benchmark result or a prediction request uses on that platform's GPU (so calibration and
-- predictions compare like with like).
create or replace table gpu_count_option as
select distinct platform_id, n
from (
    select platform_id, cast(pow(2, e) as integer) as n, gpus_per_node * max_nodes as cap
    from platform_spec, range(0, 18) t(e)
    union all
    select platform_id, cast(gpus_per_node * pow(2, e) as integer), gpus_per_node * max_nodes
    from platform_spec, range(0, 12) t(e)
)
where n <= cap
union
select p.platform_id, b.gpu_count
from platform_spec p join benchmark_result b on b.gpu = p.gpu_id
union
select p.platform_id, r.gpu_count
from platform_spec p join model_request r on r.gpu_id = p.gpu_id;
