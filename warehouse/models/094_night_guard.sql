-- grain (night_snapshot_wanted): a scalar macro
-- grain (night_run_date): a scalar macro
-- grain (night_run_id): a scalar macro
-- Report snapshots (095_night_*.sql): what each night's report shows, kept per run date so
-- `gpucalc report --date D` rebuilds D's report byte for byte after later nights, ingests and
-- replays have changed the live tables. Only a nightly run (mode online or offline) whose date
-- is the warehouse's current date keeps one: an ingest, a replay or a backfill rebuilds the
-- estimates too, but must neither rewrite nor pose as what a night published.
--
-- Whether to keep one, and the run's date and id, are settled here once, as session variables
-- the snapshot files read as constants: scalar subqueries are planned as a cross product with
-- every row, and the planner, which sees a table written earlier in the rebuild's transaction
-- as empty, holds the wide side of it (docs/scale.md).
-- A night whose every source it tried failed has nothing new to show: it keeps no snapshot where
-- a night of its date already succeeded (and kept one), so that date's report stays the good night's.
set variable night_snapshot_wanted = (
    select count(*) > 0
    from run_log r
    join run_context c on c.run_id = r.run_id
    where r.mode in ('online', 'offline') and r.run_date = c.run_date
      and not (exists (select 1 from source_status s where s.run_id = c.run_id and s.status = 'failed')
               and not exists (select 1 from source_status s where s.run_id = c.run_id and s.status = 'ok')
               and exists (select 1 from run_log g
                           where g.run_date = c.run_date and g.run_id <> c.run_id
                             and g.mode in ('online', 'offline') and g.status in ('success', 'partial')))
);
set variable night_run_date = (select run_date from run_context);
set variable night_run_id = (select run_id from run_context);
-- another session never set them: it keeps no snapshot
create or replace macro night_snapshot_wanted() as coalesce(getvariable('night_snapshot_wanted'), false);
create or replace macro night_run_date() as getvariable('night_run_date');
create or replace macro night_run_id() as getvariable('night_run_id');
