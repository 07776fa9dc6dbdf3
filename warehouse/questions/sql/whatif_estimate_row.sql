-- The cheapest estimate row on one price basis for a platform's GPU count, among the rows
-- `scope` keeps (the workload's, or any held by one instance). The extra hours a basis bills are
-- read off the estimate itself: its time to finish on this basis over its shortest on any basis
-- for the same layout. New columns of the view are carried along and read by name.
-- ?: the platform, the GPU count, (the workload,) the basis.
with rows as (
    select e.*, e.time_to_finish_h / min(e.time_to_finish_h) over (partition by e.workload_id)
           as billed_time_factor
    from estimate e
    where e.platform_id = ? and e.n_gpus = ? and {scope}
)
select * from rows where pricing = ?
order by usd_per_hour, provider, instance_type, region limit 1
