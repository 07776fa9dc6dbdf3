-- grain: one row per benchmark_result (source x source_ref x source_row) with value > 0 whose layout fits
-- calibration_point: every benchmark result set against the model's layout for it
-- (case_layout: the same workload, GPU, precision and GPU count; training compared on time to
-- train, since a larger batch needs more samples). ratio = measured / modelled rate. Only each
-- workload x GPU's latest round counts: estimates describe today's software, and MLPerf shows
-- the same GPU gaining ~30% between rounds (H100 Llama-2-70B: v4.1 ~3.0K, v5.1 ~3.9K tokens/s
-- per GPU).
create or replace table calibration_point as
with rated as (
    select
        b.*, w.kind, scenario_kind(w.kind, w.scenario) as scenario_kind, g.family,
        -- the model's family and the estimate class the point belongs to, which the bands
        -- (062_error_band_class) and the leave-one-family-out backtest (059_backtest_family) read
        md.family as model_family, estimate_class(w.kind, md.experts, g.form_factor, w.scenario) as class,
        m.platform_id, m.layout, m.n_gpus as model_gpus, m.tokens_per_s as model_tokens_per_s,
        case when b.metric = 'tokens_per_s' then b.value
             when b.per_gpu_value is not null then b.per_gpu_value * b.gpu_count
             -- time to train -> the rate at which the modelled layout's job would finish in that time
             when b.metric = 'time_to_train_min' then m.total_tokens / (b.value * 60.0)
        end as measured_tokens_per_s
    from benchmark_result b
    join workload w using (workload_id)
    left join model md on md.model_id = w.model_id
    join gpu g on g.gpu_id = b.gpu
    join case_layout m
      on m.source = b.source and m.source_ref = b.source_ref and m.source_row is not distinct from b.source_row
    where b.value > 0 and m.fits
)
select
    workload_id, kind, scenario_kind, gpu as gpu_id, family, model_family, class, platform_id, layout, gpu_count,
    model_gpus, role_split,
    suite, round, submitter, system, source, source_ref, source_row, measured_at,
    measured_at = max(measured_at) over (partition by workload_id, gpu) as latest,
    measured_tokens_per_s / gpu_count as measured_per_gpu,
    model_tokens_per_s / model_gpus as model_per_gpu,
    (measured_tokens_per_s / gpu_count) / (model_tokens_per_s / model_gpus) as ratio
from rated;
