-- grain: one row per run_date x topology_id (workload x platform x n_gpus)
-- The topologies of the night's options (night_option_pair), once each: what the workload
-- runs as on the platform at that GPU count, its layout split, throughput and calibration.
create table if not exists night_topology (
    run_date date,
    run_id varchar,
    topology_id bigint,        -- the night's own numbering (topology_estimate.topology_id that night)
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
    mem_per_gpu_gb double,
    mem_capacity_gb double,
    confidence varchar,
    calibration_level integer,
    calibration_basis varchar,
    calibration_factor double,
    error_p50 double,
    error_p90 double,
    demand_tokens_per_s double,
    deployments integer,
    fleet_gpus integer,
    fleet_utilization double,
    purpose varchar,
    error_points bigint        -- the held-out points of its error band
);

alter table night_topology add column if not exists error_points bigint;  -- a table kept before it

delete from night_topology where night_snapshot_wanted() and run_date = night_run_date();
insert into night_topology by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    t.topology_id, t.workload_id, t.kind, t.platform_id, t.gpu_id, t.n_gpus, t.nodes, t.layout,
    t.tp, t.pp, t.dp, t.batch, t.producers, t.consumers, t.run_dtype, t.bottleneck, t.tokens_per_s, t.token_unit,
    t.mem_per_gpu_gb, t.mem_capacity_gb, t.confidence, t.calibration_level, t.calibration_basis,
    t.calibration_factor, t.error_p50, t.error_p90, t.error_points, t.demand_tokens_per_s, t.deployments, t.fleet_gpus,
    t.fleet_utilization,
    -- looked up per row rather than joined: the planner would hash the night's topologies, not
    -- the workloads (docs/scale.md)
    workload_purpose((select w.purpose from workload w where w.workload_id = t.workload_id)) as purpose
from topology_estimate t
where night_snapshot_wanted()
  and t.topology_id in (select topology_id from night_option_pair where run_date = night_run_date());
