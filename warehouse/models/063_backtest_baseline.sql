-- grain: one row per latest calibration point (source x source_ref x source_row), as backtest
-- backtest_baseline: every held-out point of the backtest beside what a spreadsheet would have
-- said, and whether its held-out error lies within the bands its estimate would have stated.
--
-- The spreadsheet (`baseline_*`): the nearest measured result of the same workload (which names
-- its model and scenario) on another accelerator, among the backtest's own points (each
-- workload x GPU's latest round): the same GPU count first, then H100-SXM (the usual reference),
-- then the nearest GPU count, then the accelerator the ratio moves least, then by name. Where
-- that accelerator has several results at that count (submitters, systems), their geometric
-- mean. Its tokens/s per GPU times the ratio of the held-out GPU's spec to the neighbour's
-- (`scaled_by`): dense peak FLOP/s at the precision each result ran in (`peak_tflops`, spec
-- sheet clocks) for training, role pipelines and serving whose prompts are at least as long
-- as its outputs (prefill-heavy, compute-bound); memory bandwidth for serving with longer
-- outputs (decode-bound), per byte of weight at the precision each ran in (FP4 streams half
-- the bytes of FP8). A point whose workload no other accelerator measured has no baseline.
--
-- The bands (`error_p50`, `error_p90`): error_band_class's row of the point's workload kind and
-- class at the level its held-out prediction used (backtest.loao_level; 0 uncalibrated), as `gpucalc
-- predict` states them beside a prediction. A point is within a band when its error
-- (loao_ape: |predicted - measured| / measured, the error the bands are quantiles of) is at
-- most the band. Null where that level earned no band.
--
-- `class`: the classes of the outside check (issue 34, docs/accuracy.md), one per point in this
-- order: training; role pipelines; MoE serving of the DeepSeek-R1 class (64 experts or more;
-- Mixtral-8x7B's 8 count as dense, as there); serving on PCIe, NVL-bridge and workstation cards
-- (form factor "PCIe ..."); Interactive on the rest; Offline / Server on the rest.
create or replace table backtest_baseline as
with point as (
    select
        b.source, b.source_ref, b.source_row, b.workload_id, b.kind, b.scenario_kind, b.gpu_id, b.gpu_count,
        b.measured_per_gpu, b.loao_predicted_per_gpu, b.loao_ape,
        coalesce(b.loao_level, 0) as band_level,
        m.run_dtype,
        peak_tflops(m.run_dtype, g.fp4_tflops, g.fp8_tflops, g.bf16_tflops) as peak_tflops,
        -- a decode step streams the weights: bandwidth per byte of weight at that precision
        g.mem_bw_tbps / dtype_bytes(m.run_dtype) as weights_per_s,
        case when b.kind = 'serving' and w.input_len < w.output_len then 'memory bandwidth'
             else 'dense peak FLOP/s' end as scaled_by,
        b.class
    from backtest b
    join case_layout m
      on m.source = b.source and m.source_ref = b.source_ref and m.source_row is not distinct from b.source_row
     and m.fits
    join gpu g on g.gpu_id = b.gpu_id
    join workload w on w.workload_id = b.workload_id
),
measured as (
    -- each accelerator's results of a workload at one GPU count (and precision)
    select workload_id, gpu_id, gpu_count, peak_tflops, weights_per_s,
           geometric_mean(measured_per_gpu) as per_gpu, count(*) as results
    from point
    group by all
),
neighbour as (
    select
        p.source, p.source_ref, p.source_row, p.gpu_count,
        n.gpu_id as baseline_gpu_id, n.gpu_count as baseline_gpu_count, n.results as baseline_results,
        n.per_gpu as baseline_measured_per_gpu,
        case p.scaled_by when 'memory bandwidth' then p.weights_per_s / n.weights_per_s
             else p.peak_tflops / n.peak_tflops end as baseline_scale
    from point p
    join measured n on n.workload_id = p.workload_id and n.gpu_id <> p.gpu_id
),
nearest as (
    select n.*,
           row_number() over (
               partition by n.source, n.source_ref, n.source_row
               order by n.baseline_gpu_count = n.gpu_count desc, n.baseline_gpu_id = 'H100-SXM' desc,
                        abs(ln(n.baseline_gpu_count / n.gpu_count)), abs(ln(n.baseline_scale)),
                        n.baseline_gpu_id, n.baseline_scale
           ) as rank
    from neighbour n
    where n.baseline_scale > 0
)
select
    p.source, p.source_ref, p.source_row, p.workload_id, p.kind, p.scenario_kind, p.gpu_id, p.gpu_count,
    p.class,
    estimate_class_order(p.kind, p.class) as class_order,
    p.measured_per_gpu, p.loao_predicted_per_gpu, p.loao_ape,
    p.scaled_by, p.run_dtype,
    n.baseline_gpu_id, n.baseline_gpu_count, n.baseline_results, n.baseline_measured_per_gpu, n.baseline_scale,
    n.baseline_measured_per_gpu * n.baseline_scale as baseline_per_gpu,
    abs(n.baseline_measured_per_gpu * n.baseline_scale - p.measured_per_gpu) / p.measured_per_gpu as baseline_ape,
    p.band_level,
    -- how far the prediction reached for its calibration, in the words of calibration_level
    coalesce(l.basis, 'uncalibrated: documented efficiencies') as band_basis,
    e.error_p50,
    e.error_p90,
    p.loao_ape <= e.error_p50 as within_p50,
    p.loao_ape <= e.error_p90 as within_p90
from point p
left join nearest n on n.source = p.source and n.source_ref = p.source_ref
                   and n.source_row is not distinct from p.source_row and n.rank = 1
left join error_band_class e on e.kind = p.kind and e.class = p.class and e.level = p.band_level
left join (select distinct level, basis from calibration_level) l on l.level = p.band_level;
