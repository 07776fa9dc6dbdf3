-- grain: one row per run_date x workload x platform x n_gpus
-- The calibration every estimate used that night (calibration_choice, per workload, platform
-- and GPU count): level, factor, basis and how many benchmark points it pools.
create table if not exists night_calibration (
    run_date date,
    run_id varchar,
    workload_id varchar,
    platform_id varchar,
    gpu_id varchar,
    level integer,
    factor double,
    basis varchar,
    points bigint,
    confidence varchar
);

-- calibration is chosen per GPU count: "measured" holds only at the count that was measured
alter table night_calibration add column if not exists n_gpus integer;

delete from night_calibration where night_snapshot_wanted() and run_date = night_run_date();
insert into night_calibration by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    workload_id, platform_id, gpu_id, n_gpus, level, factor, basis, points, confidence
from calibration_choice
where night_snapshot_wanted();
