-- grain: one row per run_date x refused workload x platform x n_gpus
-- Every layout refused that night (does not fit in memory, or cannot meet the latency limits),
-- with the reason and the smallest GPU count of that platform that does fit, if any.
create table if not exists night_refusal (
    run_date date,
    run_id varchar,
    workload_id varchar,
    platform_id varchar,
    gpu_id varchar,
    kind varchar,
    n_gpus integer,
    mem_per_gpu_gb double,
    mem_capacity_gb double,
    refusal varchar,
    refusal_kind varchar,     -- memory | latency
    fits_from_gpus integer    -- smallest GPU count of this platform that fits; null: none does
);

delete from night_refusal where night_snapshot_wanted() and run_date = night_run_date();
insert into night_refusal by name
with fitting as (
    select workload_id, platform_id, min(n_gpus) as fits_from_gpus
    from topology_estimate where fits group by all
)
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    t.workload_id, t.platform_id, t.gpu_id, t.kind, t.n_gpus, t.mem_per_gpu_gb, t.mem_capacity_gb, t.refusal,
    -- the serving model words a latency refusal with the limits it misses (031_serving_choice.sql)
    case when t.refusal ilike '%TTFT%' or t.refusal ilike '%TPOT%' or t.refusal ilike '%latency%' then 'latency'
         else 'memory' end as refusal_kind,
    f.fits_from_gpus
from topology_estimate t
left join fitting f on f.workload_id = t.workload_id and f.platform_id = t.platform_id
where not t.fits and night_snapshot_wanted();
