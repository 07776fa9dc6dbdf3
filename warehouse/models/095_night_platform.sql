-- grain: one row per run_date x platform
-- The night's platforms as the catalog described them: the GPUs of one system and of one
-- scale-up domain and the system's name, so the report says each fleet in words (how many
-- servers, racks or trays) as that night's catalog had it.
create table if not exists night_platform (
    run_date date,
    run_id varchar,
    platform_id varchar,
    name varchar,
    gpu_id varchar,
    gpus_per_node integer,
    scaleup_domain_gpus integer
);

delete from night_platform where night_snapshot_wanted() and run_date = night_run_date();
insert into night_platform by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    p.platform_id, p.name, p.gpu_id, p.gpus_per_node, p.scaleup_domain_gpus
from platform p
where night_snapshot_wanted();
