-- Calibration: how far the default-efficiency model is from what was measured.
-- For every benchmark result that names a workload we model, compare the measured per-GPU
-- rate with the model's best layout at the same GPU count on that GPU, then pool the ratios
-- (geometric mean) at levels from specific to general. Estimates use the most specific level
-- that has data; none at all means the documented defaults. Only each workload x GPU's latest
-- results calibrate: estimates describe today's software, and MLPerf shows the same GPU
-- gaining ~30% between rounds (H100 Llama-2-70B: v4.1 ~3.0K, v5.1 ~3.9K tokens/s per GPU).

create or replace macro scenario_kind(kind, scenario) as
    kind || case when kind = 'serving' then ':' || coalesce(scenario, 'Offline') else '' end;

create or replace table calibration_point as
with observed as (
    select
        b.*, w.kind, scenario_kind(w.kind, w.scenario) as scenario_kind, g.family,
        normalized_precision(b.precision, w.dtype) as model_dtype,
        case when b.metric = 'tokens_per_s' then b.value
             when b.per_gpu_value is not null then b.per_gpu_value * b.gpu_count
             -- time to train -> tokens/s over the job's tokens
             when b.metric = 'time_to_train_min' then w.total_tokens / (b.value * 60.0)
        end as measured_tokens_per_s
    from benchmark_result b
    join workload w using (workload_id)
    join gpu g on g.gpu_id = b.gpu
),
matched as (
    select
        o.*,
        c.platform_id, c.layout, c.n_gpus as model_gpus, c.tokens_per_s as model_tokens_per_s,
        row_number() over (partition by o.source, o.source_ref, o.source_row
                           order by c.tokens_per_s / c.n_gpus desc) as rank
    from observed o
    join platform p on p.gpu_id = o.gpu
    join topology_candidate c
      on c.workload_id = o.workload_id and c.platform_id = p.platform_id and c.fits
     and c.dtype = o.model_dtype
     and (   (o.kind = 'serving' and c.n_gpus <= greatest(o.gpu_count, p.gpus_per_node)
              and c.scaleup_group <= o.gpu_count)
          or (o.kind = 'role_pipeline' and c.n_gpus = o.gpu_count
              and (o.role_split is null or o.role_split = c.producers || '+' || c.consumers))
          or (o.kind not in ('serving', 'role_pipeline') and c.n_gpus = o.gpu_count))
    where o.measured_tokens_per_s > 0
)
select
    workload_id, kind, scenario_kind, gpu as gpu_id, family, platform_id, layout, gpu_count, role_split,
    suite, round, submitter, system, source, source_ref, source_row, measured_at,
    measured_at = max(measured_at) over (partition by workload_id, gpu) as latest,
    measured_tokens_per_s / gpu_count as measured_per_gpu,
    model_tokens_per_s / model_gpus as model_per_gpu,
    (measured_tokens_per_s / gpu_count) / (model_tokens_per_s / model_gpus) as ratio
from matched
where rank = 1;

-- Every latest point at every level: the keys a level matches on, null where it matches
-- anything. `kind` holds the scenario kind at levels 4-5 and the workload kind at 6-7.
create or replace table calibration_level as
select
    l.level, l.basis, p.gpu_id as point_gpu, p.ratio,
    case when l.level <= 3 then p.workload_id end as workload_id,
    case when l.level = 1 then p.gpu_id end as gpu_id,
    case when l.level in (2, 4, 6) then p.family end as family,
    case when l.level in (4, 5) then p.scenario_kind when l.level in (6, 7) then p.kind end as kind
from calibration_point p
cross join (values
    (1, 'measured: same workload and GPU'),
    (2, 'calibrated: same workload, same GPU family'),
    (3, 'calibrated: same workload, other GPUs'),
    (4, 'calibrated: same kind and scenario, same GPU family'),
    (5, 'calibrated: same kind and scenario, other GPUs'),
    (6, 'calibrated: same kind of workload, same GPU family'),
    (7, 'calibrated: same kind of workload, other GPUs')
) l(level, basis)
where p.latest;

-- Whether a level's keys cover an estimate (or a held-out point) of this workload and GPU.
create or replace macro calibration_applies(c_workload, c_gpu, c_family, c_kind, workload, gpu, family, kind,
                                            scenario_kind) as
    (c_workload is null or c_workload = workload) and (c_gpu is null or c_gpu = gpu)
    and (c_family is null or c_family = family) and (c_kind is null or c_kind in (kind, scenario_kind));

create or replace table calibration as
select
    level, basis, workload_id, gpu_id, family, kind,
    exp(avg(ln(ratio))) as factor,
    count(*) as points,
    min(ratio) as min_ratio,
    max(ratio) as max_ratio
from calibration_level
group by all;

-- The factor each estimate uses: the most specific level with data.
create or replace table calibration_choice as
select
    t.workload_id, t.platform_id, t.gpu_id,
    coalesce(c.level, 0) as level,
    coalesce(c.factor, 1.0) as factor,
    coalesce(c.basis, 'default: documented efficiencies, no benchmark to calibrate on') as basis,
    coalesce(c.points, 0) as points,
    case when c.level = 1 then 'measured' when c.level is not null then 'calibrated' else 'default' end
        as confidence
from (select distinct workload_id, platform_id, gpu_id from topology_raw) t
join workload w using (workload_id)
join gpu g on g.gpu_id = t.gpu_id
left join lateral (
    select * from calibration c
    where calibration_applies(c.workload_id, c.gpu_id, c.family, c.kind, t.workload_id, t.gpu_id, g.family,
                              w.kind, scenario_kind(w.kind, w.scenario))
    order by c.level
    limit 1
) c on true;
