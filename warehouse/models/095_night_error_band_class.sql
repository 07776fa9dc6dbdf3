-- grain: one row per run_date x workload kind x estimate class x level
-- The night's error band per workload kind, estimate class and level (error_band_class): the
-- band each of the night's estimates states.
create table if not exists night_error_band_class (
    run_date date,
    run_id varchar,
    kind varchar,
    class varchar,
    level integer,             -- 0 default, 1 measured, 2-8 calibrated
    confidence varchar,
    error_p50 double,
    error_p90 double,
    points bigint,
    basis varchar
);

delete from night_error_band_class where night_snapshot_wanted() and run_date = night_run_date();
insert into night_error_band_class by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    kind, class, level, confidence, error_p50, error_p90, points, basis
from error_band_class
where night_snapshot_wanted();
