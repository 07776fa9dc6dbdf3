-- grain: one row per run_date
-- One row per night that kept a report snapshot: the night the report of run_date describes.
create table if not exists night_run (
    run_date date,
    run_id varchar
);

delete from night_run where night_snapshot_wanted() and run_date = night_run_date();
insert into night_run by name
select run_date, run_id from run_context where night_snapshot_wanted();
