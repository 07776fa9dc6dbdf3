-- The job's cheapest choice on each platform asked for, on each price basis asked for, named as
-- the `decision` mart names its choices. ?: the workload, the platforms, the price bases.
select *, case when pricing = 'owned' then 'buy' when pricing = 'spot' then 'rent spot'
               when pricing like 'reserved%' then 'rent reserved' else 'rent on-demand' end as choice,
       'cheapest' as pick
from platform_choice
where workload_id = ? and list_contains(?, platform_id) and list_contains(?, pricing)
order by platform_id, pricing
