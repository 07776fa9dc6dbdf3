-- Report snapshots (095_night_*.sql): what each night's report shows, kept per run date so
-- `gpucalc report --date D` rebuilds D's report byte for byte after later nights, ingests and
-- replays have changed the live tables. Only a nightly run (mode online or offline) whose date
-- is the warehouse's current date keeps one: an ingest, a replay or a backfill rebuilds the
-- estimates too, but must neither rewrite nor pose as what a night published.
create or replace macro night_snapshot_wanted() as (
    select count(*) > 0
    from run_log r
    join run_context c on c.run_id = r.run_id
    where r.mode in ('online', 'offline') and r.run_date = c.run_date
);
