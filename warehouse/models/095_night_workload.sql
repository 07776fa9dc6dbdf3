-- grain: one row per run_date x workload
-- The night's workloads as the report names them, with the cheapest managed-API baseline of
-- each serving workload (ties: provider name).
create table if not exists night_workload (
    run_date date,
    run_id varchar,
    workload_id varchar,
    name varchar,
    kind varchar,
    model_id varchar,
    dtype varchar,
    scenario varchar,
    token_unit varchar,
    total_tokens double,
    api_provider varchar,
    api_usd_per_mtok_output double,   -- input tokens included at the workload's input/output ratio
    self_hosted_usd_per_mtok double,
    api_observed_at date,
    api_source varchar
);

alter table night_workload add column if not exists purpose varchar;            -- job | benchmark
alter table night_workload add column if not exists demand_tokens_per_s double;

delete from night_workload where night_snapshot_wanted() and run_date = night_run_date();
insert into night_workload by name
with api as (
    select * from api_baseline
    qualify row_number() over (partition by workload_id order by api_usd_per_mtok_output, provider) = 1
)
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    w.workload_id, w.name, w.kind, w.model_id, w.dtype, w.scenario, w.token_unit, w.total_tokens,
    workload_purpose(w.purpose) as purpose, w.demand_tokens_per_s,
    a.provider as api_provider, a.api_usd_per_mtok_output, a.self_hosted_usd_per_mtok,
    a.observed_at as api_observed_at, a.source as api_source
from workload w
left join api a on a.workload_id = w.workload_id
where night_snapshot_wanted();
