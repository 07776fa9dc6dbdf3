-- grain: one row per workload x platform x n_gpus (topology_id; the workload's own dtype)
-- topology_estimate: calibrated physics per workload x platform x GPU count: throughput, time
-- to finish, GPU-hours and energy, with the calibration it rests on and its error band.
-- Serving rows come from the calibrated serving choice, whose batch already meets the
-- latency limits at the calibrated step time (its throughput carries the factor); training
-- and role pipelines scale their throughput by the factor here.
create or replace table topology_estimate as
with published as (
    -- system_gpus: the GPUs whose calibration the estimate carries; k serving systems side by
    -- side carry one system's (serving_choice's `system_gpus`)
    select t.*, c.factor as rate_factor, t.n_gpus as system_gpus
    from topology_raw t
    join calibration_choice c using (workload_id, platform_id, gpu_id, n_gpus)
    where t.kind <> 'serving'
    union all by name
    select s.* exclude (case_index), 1.0 as rate_factor
    from topology_serving_calibrated s
    where s.case_index is null
),
sized as (
    select
        t.* replace (case when w.demand_tokens_per_s > 0 and t.kind = 'serving' then t.replica_layout
                          else t.layout end as layout),
        t.tokens_per_s * t.rate_factor as rate,
        -- a serving job with a demand runs as many replicas as the demand needs (a replica: the
        -- GPUs one copy of the model spans), and serves at the demand's pace; any other job
        -- runs its deployment at its own pace: one, or whole systems of replicas side by side,
        -- which need no link between them (serving_choice's `systems`)
        -- (the fleet as serving_choice sized it: fleet_replicas, fleet_prefill_gpus)
        case when w.demand_tokens_per_s > 0 and t.kind = 'serving' then t.replica_gpus
             else t.system_gpus end as unit_gpus,
        case when w.demand_tokens_per_s > 0 and t.kind = 'serving' then coalesce(t.fleet_replicas, 1)
             else coalesce(t.systems, 1) end as deployments,
        case when w.demand_tokens_per_s > 0 and t.kind = 'serving' then w.demand_tokens_per_s
             else t.tokens_per_s * t.rate_factor end as served_tokens_per_s,
        case when w.demand_tokens_per_s > 0 and t.kind = 'serving' then w.demand_tokens_per_s end as demand_tokens_per_s,
        -- a disaggregated fleet adds whole replicas' worth of prefill GPUs for the demand's prompts
        case when w.demand_tokens_per_s > 0 and t.kind = 'serving' then coalesce(t.fleet_prefill_gpus, 0) else 0 end
            as prefill_gpus
    from published t
    join workload w on w.workload_id = t.workload_id and w.dtype = t.dtype  -- estimates: the workload's own dtype
)
select
    -- a stable id the estimate pairs refer to (estimate_pair, estimate_rows)
    row_number() over (order by t.workload_id, t.platform_id, t.dtype, t.n_gpus) as topology_id,
    (select run_id from run_context) as run_id,
    (select run_date from run_context) as run_date,
    t.workload_id, t.platform_id, t.gpu_id, t.kind, t.dtype, t.n_gpus, t.nodes,
    t.layout || case when t.prefill_gpus = 1 then ' onto 1 GPU'
                     when t.prefill_gpus > 1 then ' onto ' || t.prefill_gpus || ' GPUs' else '' end as layout,
    t.scaleup_group,
    p.scaleup_domain_gpus, p.gpus_per_node as node_gpus,
    t.run_dtype, t.tp, t.pp, t.dp, t.ep, t.batch, t.producers, t.consumers,
    t.t_compute_s, t.t_memory_s, t.t_comm_s, t.t_step_s,
    t.tpot_s * 1000.0 as tpot_ms, t.ttft_s * 1000.0 as ttft_ms,
    t.bottleneck, t.mem_per_gpu_gb, t.mem_capacity_gb, t.fits, t.refusal,
    t.tokens_per_s * t.rate_factor / c.factor as model_tokens_per_s,
    t.rate as tokens_per_s,
    t.rate / t.n_gpus as tokens_per_s_per_gpu,
    t.token_unit,
    t.demand_tokens_per_s,
    t.unit_gpus,
    t.deployments,
    t.deployments * t.unit_gpus + t.prefill_gpus as fleet_gpus,
    t.prefill_gpus,
    -- share of the fleet's capacity the demand uses
    t.served_tokens_per_s / (t.deployments * t.rate * t.unit_gpus / t.n_gpus) as fleet_utilization,
    -- wall clock for the whole job, with failed work re-done
    t.total_tokens / t.served_tokens_per_s / 3600.0 * (1 + assume('failed_work_overhead')) as time_to_finish_h,
    (t.deployments * t.unit_gpus + t.prefill_gpus) * t.total_tokens / t.served_tokens_per_s / 3600.0
        * (1 + assume('failed_work_overhead')) as gpu_hours,
    t.kw_per_gpu * (t.deployments * t.unit_gpus + t.prefill_gpus) * assume('pue')
        * t.total_tokens / t.served_tokens_per_s / 3600.0 * (1 + assume('failed_work_overhead'))
        as energy_kwh,
    c.factor as calibration_factor,
    c.level as calibration_level,
    c.basis as calibration_basis,
    c.confidence,
    b.error_p50,
    b.error_p90,
    b.points as error_points,
    b.basis as error_basis,
    t.total_tokens
from sized t
join platform_spec p on p.platform_id = t.platform_id
join calibration_choice c
  on c.workload_id = t.workload_id and c.platform_id = t.platform_id and c.gpu_id = t.gpu_id
 and c.n_gpus = t.system_gpus
-- the band of the estimate's own class (062_error_band_class): one class's errors say nothing of another's
left join error_band_class b on b.kind = t.kind and b.class = c.class and b.level = c.level
-- GPU counts beyond what a platform scales to are modelled only to compare with benchmarks
where t.n_gpus <= p.gpus_per_node * p.max_nodes;
