-- grain: one row per run_date x platform x bottleneck
-- The bottleneck mix per platform that night: how many feasible topologies (every workload and
-- GPU count) each stage limits.
create table if not exists night_bottleneck (
    run_date date,
    run_id varchar,
    platform_id varchar,
    gpu_id varchar,
    bottleneck varchar,
    topologies bigint
);

delete from night_bottleneck where night_snapshot_wanted() and run_date = night_run_date();
insert into night_bottleneck by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    platform_id, gpu_id, bottleneck, count(*) as topologies
from topology_estimate
where fits and night_snapshot_wanted()
group by all;
