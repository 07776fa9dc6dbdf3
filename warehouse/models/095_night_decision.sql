-- grain: one row per run_date x job workload x choice x pick
-- The night's decision per job (093_decision): rent on-demand, rent spot, rent reserved, buy,
-- the managed API and a measured baseline, each on its own price basis, as the headline of
-- the night's report says it.
create table if not exists night_decision (
    run_date date,
    run_id varchar,
    workload_id varchar,
    choice varchar,
    pick varchar,
    pricing varchar,
    platform_id varchar,
    gpu_id varchar,
    n_gpus integer,
    fleet_gpus integer,
    layout varchar,
    provider varchar,
    region varchar,
    instance_type varchar,
    instances double,
    tokens_per_s double,
    token_unit varchar,
    time_to_finish_h double,
    usd_per_hour double,
    usd_total double,
    usd_per_mtok double,
    bottleneck varchar,
    confidence varchar,
    error_p50 double,
    error_p90 double,
    basis_note varchar,
    capacity_note varchar,
    cost_vs_on_demand double,
    break_even_utilization double,
    api_usd_per_mtok_output double,
    api_observed_at date,
    price_observed_at date,
    price_source varchar
);

alter table night_decision add column if not exists unit_gpus integer;
alter table night_decision add column if not exists deployments integer;
alter table night_decision add column if not exists fleet_utilization double;

delete from night_decision where night_snapshot_wanted() and run_date = night_run_date();
insert into night_decision by name
select night_run_date() as run_date, night_run_id() as run_id, d.*
from decision d
where night_snapshot_wanted();
