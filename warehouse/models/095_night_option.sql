-- Every option of the night: per workload x platform x GPU count x pricing, the cheapest quote
-- (ties broken by provider, region, zone, instance type and source, so two runs on the same
-- data keep the same row), with its layout split, calibration and Pareto flag.
create table if not exists night_option (
    run_date date,
    run_id varchar,
    workload_id varchar,
    kind varchar,
    platform_id varchar,
    gpu_id varchar,
    n_gpus integer,
    nodes integer,
    layout varchar,
    tp integer,
    pp integer,
    dp integer,
    batch integer,
    producers integer,
    consumers integer,
    run_dtype varchar,
    bottleneck varchar,
    tokens_per_s double,
    token_unit varchar,
    time_to_finish_h double,
    gpu_hours double,
    energy_kwh double,
    mem_per_gpu_gb double,
    mem_capacity_gb double,
    provider varchar,
    region varchar,
    zone varchar,
    instance_type varchar,
    pricing varchar,
    gpus_per_instance double,
    instances double,
    usd_per_instance_hour double,
    usd_per_gpu_hour double,
    usd_per_hour double,
    usd_total double,
    usd_per_mtok double,
    price_observed_at date,
    price_source varchar,
    price_source_ref varchar,
    confidence varchar,
    calibration_level integer,
    calibration_basis varchar,
    calibration_factor double,
    error_p50 double,
    error_p90 double,
    on_frontier boolean       -- in `pareto`: no other option is both faster and cheaper
);

-- the price basis spelled out, and what a serving fleet sized to its demand takes
alter table night_option add column if not exists basis_note varchar;
alter table night_option add column if not exists capacity_note varchar;
alter table night_option add column if not exists demand_tokens_per_s double;
alter table night_option add column if not exists deployments integer;
alter table night_option add column if not exists fleet_gpus integer;
alter table night_option add column if not exists fleet_utilization double;
alter table night_option add column if not exists purpose varchar;

delete from night_option where night_snapshot_wanted() and run_date = night_run_date();
insert into night_option by name
with best as (
    select * from estimate_best where night_snapshot_wanted()
)
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    b.workload_id, b.kind, b.platform_id, b.gpu_id, b.n_gpus, b.nodes, b.layout,
    t.tp, t.pp, t.dp, t.batch, t.producers, t.consumers, b.run_dtype, b.bottleneck,
    b.tokens_per_s, b.token_unit, b.time_to_finish_h, b.gpu_hours, b.energy_kwh, b.mem_per_gpu_gb, b.mem_capacity_gb,
    b.provider, b.region, b.zone, b.instance_type, b.pricing, b.gpus_per_instance, b.instances,
    b.usd_per_instance_hour, b.usd_per_gpu_hour, b.usd_per_hour, b.usd_total, b.usd_per_mtok,
    b.price_observed_at, b.price_source, b.price_source_ref,
    b.confidence, t.calibration_level, b.calibration_basis, b.calibration_factor, b.error_p50, b.error_p90,
    p.workload_id is not null as on_frontier,
    b.basis_note, b.capacity_note, b.demand_tokens_per_s, b.deployments, b.fleet_gpus, b.fleet_utilization,
    -- looked up per row rather than joined: the planner would hash this night's options, not
    -- the workloads (0.12 s at the 10M-estimate bench)
    workload_purpose((select w.purpose from workload w where w.workload_id = b.workload_id)) as purpose
from best b
join topology_estimate t
  on t.workload_id = b.workload_id and t.platform_id = b.platform_id and t.n_gpus = b.n_gpus
left join pareto p
  on p.workload_id = b.workload_id and p.platform_id = b.platform_id and p.n_gpus = b.n_gpus
 and p.pricing = b.pricing;
