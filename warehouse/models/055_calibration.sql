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

create or replace table calibration as
with latest as (select * from calibration_point where latest),
levels as (
    select 1 as level, 'measured: same workload and GPU' as basis, workload_id, gpu_id,
           null as family, null as kind, ratio from latest
    union all
    select 2, 'calibrated: same workload, same GPU family', workload_id, null, family, null, ratio from latest
    union all
    select 3, 'calibrated: same workload, other GPUs', workload_id, null, null, null, ratio from latest
    union all
    select 4, 'calibrated: same kind and scenario, same GPU family', null, null, family, scenario_kind, ratio
    from latest
    union all
    select 5, 'calibrated: same kind and scenario, other GPUs', null, null, null, scenario_kind, ratio from latest
    union all
    select 6, 'calibrated: same kind of workload, same GPU family', null, null, family, kind, ratio from latest
    union all
    select 7, 'calibrated: same kind of workload, other GPUs', null, null, null, kind, ratio from latest
)
select
    level, basis, workload_id, gpu_id, family, kind,
    exp(avg(ln(ratio))) as factor,
    count(*) as points,
    min(ratio) as min_ratio,
    max(ratio) as max_ratio
from levels
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
    where (c.level = 1 and c.workload_id = t.workload_id and c.gpu_id = t.gpu_id)
       or (c.level = 2 and c.workload_id = t.workload_id and c.family = g.family)
       or (c.level = 3 and c.workload_id = t.workload_id)
       or (c.level = 4 and c.kind = scenario_kind(w.kind, w.scenario) and c.family = g.family)
       or (c.level = 5 and c.kind = scenario_kind(w.kind, w.scenario))
       or (c.level = 6 and c.kind = w.kind and c.family = g.family)
       or (c.level = 7 and c.kind = w.kind)
    order by c.level
    limit 1
) c on true;
