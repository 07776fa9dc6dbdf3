-- grain: one row per run_date x scope x subject x name
-- The documented defaults the night's estimates rested on, one value per row: efficiency per
-- accelerator family (every column of efficiency_default), stage factors, and assumptions.
create table if not exists night_parameter (
    run_date date,
    run_id varchar,
    scope varchar,      -- efficiency | stage | assumption
    subject varchar,    -- the family (efficiency) or the stage; null for assumptions
    name varchar,
    value double,
    unit varchar,
    source varchar
);

delete from night_parameter where night_snapshot_wanted() and run_date = night_run_date();
insert into night_parameter by name
with efficiency as (
    unpivot efficiency_default on columns(* exclude (family, source)) into name name value value
)
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    scope, subject, name, value, unit, source
from (
    select 'efficiency' as scope, family as subject, name, value, null as unit, source from efficiency
    union all
    select 'stage', stage, 'factor', factor, null, source from stage_efficiency_default
    union all
    select 'assumption', null, name, value, unit, source from assumption
)
where night_snapshot_wanted();
