-- `gpucalc compare --platforms A,B`: the two platforms at every provider that prices both on a
-- basis tonight. Each side is the provider's cheapest fresh GPU-hour for the platform's GPU
-- (price_option's market rows, as platform_market counts them), and each platform's chosen layout
-- (platform_choice on that basis) priced at it: the layout's cost over the GPU-hour it was priced
-- at is the GPU-hours it pays for per output (per million tokens served, or for the whole job),
-- which times the provider's GPU-hour is its cost at that provider. A basis where a platform has
-- no chosen layout still compares the GPU-hours; its cost columns are null.
-- $workload, $a, $b: the workload and the two platforms; $bases: the price bases asked for.
with offer as (
    select p.platform_id, o.provider, o.pricing,
           min(o.usd_per_gpu_hour) as usd_per_gpu_hour,
           arg_min(o.instance_type, (o.usd_per_gpu_hour, o.instance_type)) as instance_type
    from price_option o
    join platform p on p.gpu_id = o.gpu
    where o.platform_id is null and p.platform_id in ($a, $b) and list_contains($bases, o.pricing)
    group by p.platform_id, o.provider, o.pricing
),
layout as (
    select platform_id, pricing,
           case when kind = 'serving' then usd_per_mtok else usd_total end / usd_per_gpu_hour as gpu_hours_per_unit
    from platform_choice
    where workload_id = $workload and platform_id in ($a, $b)
)
select
    a.pricing, a.provider,
    a.instance_type as a_instance_type, b.instance_type as b_instance_type,
    a.usd_per_gpu_hour as a_usd_per_gpu_hour, b.usd_per_gpu_hour as b_usd_per_gpu_hour,
    a.usd_per_gpu_hour / b.usd_per_gpu_hour as price_ratio,
    la.gpu_hours_per_unit * a.usd_per_gpu_hour as a_usd_per_unit,
    lb.gpu_hours_per_unit * b.usd_per_gpu_hour as b_usd_per_unit,
    (la.gpu_hours_per_unit * a.usd_per_gpu_hour) / (lb.gpu_hours_per_unit * b.usd_per_gpu_hour) as cost_ratio
from offer a
join offer b on b.provider = a.provider and b.pricing = a.pricing and b.platform_id = $b
left join layout la on la.platform_id = $a and la.pricing = a.pricing
left join layout lb on lb.platform_id = $b and lb.pricing = a.pricing
where a.platform_id = $a
order by a.pricing, price_ratio, a.provider
