-- grain: one row per run_date x workload kind x level
-- The night's error band per workload kind and confidence (error_band).
create table if not exists night_error_band (
    run_date date,
    run_id varchar,
    kind varchar,
    confidence varchar,
    error_p50 double,
    error_p90 double,
    points bigint,
    basis varchar
);

alter table night_error_band add column if not exists level integer;  -- 0 default, 1 measured, 2-8 calibrated

delete from night_error_band where night_snapshot_wanted() and run_date = night_run_date();
insert into night_error_band by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    kind, level, confidence, error_p50, error_p90, points, basis
from error_band
where night_snapshot_wanted();
