-- grain: one row per run_date x workload x platform x n_gpus x pricing (a topology_id x quote_id pair)
-- The night's options (the view night_option, 096_night_option.sql): per workload x platform x
-- GPU count x pricing, the cheapest quote (estimate_best: ties broken by provider, region,
-- zone, instance type and source, so two runs on the same data keep the same row), as the
-- pair of its topology (night_topology) and its quote (night_quote) and what the pair costs.
--
-- A night's options are stored as these three tables rather than as whole rows: they stand on
-- far fewer topologies and quotes, so the same rows take fewer cells, and storing cells is most
-- of what the snapshot costs (docs/scale.md).
create table if not exists night_option_pair (
    run_date date,
    topology_id bigint,        -- night_topology's row of the same run_date
    quote_id bigint,           -- night_quote's row of the same run_date
    time_to_finish_h double,
    gpu_hours double,
    energy_kwh double,
    instances double,
    usd_per_hour double,
    usd_total double,
    usd_per_mtok double,
    on_frontier boolean,       -- in `pareto`: no other option is both faster and cheaper
    basis_note varchar,
    capacity_note varchar
);

delete from night_option_pair where night_snapshot_wanted() and run_date = night_run_date();
insert into night_option_pair by name
select
    night_run_date() as run_date,
    b.topology_id, b.quote_id,
    b.time_to_finish_h, b.gpu_hours, b.energy_kwh, b.instances, b.usd_per_hour, b.usd_total, b.usd_per_mtok,
    p.workload_id is not null as on_frontier,
    b.basis_note, b.capacity_note
from estimate_best b
left join pareto p
  on p.workload_id = b.workload_id and p.platform_id = b.platform_id and p.n_gpus = b.n_gpus
 and p.pricing = b.pricing
where night_snapshot_wanted();
