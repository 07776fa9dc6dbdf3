-- grain: one row per platform x workload x dtype
-- platform_workload: per platform x workload x precision, the format the GEMMs really run in
-- (a GPU without FP4/FP8 falls back to a wider one) with its peak and efficiencies, and the
-- format of everything that does not run in FP4: attention (FP8 attention and KV cache where
-- the GEMMs are FP8 or FP4) and, for MoE models, the non-expert GEMMs (serving stacks quantise
-- only the routed experts to FP4; attention and dense layers stay FP8, modeling notes §1).
-- Weights stay in the declared format where the GEMMs fall back to a wider one: weight-only
-- kernels (Marlin on Ampere and Hopper, IPEX-LLM's INT4 on Intel Arc) read them quantised and
-- widen them on chip, so a decode step streams the declared bytes and computes in run_dtype.
create or replace table platform_workload as
with formats as (
    select
        p.*,
        o.workload_id,
        o.dtype,
        effective_dtype(o.dtype, p.fp4_tflops, p.fp8_tflops) as run_dtype,
        effective_dtype(case when o.dtype = 'fp4' then 'fp8' else o.dtype end, p.fp4_tflops, p.fp8_tflops)
            as wide_dtype
    from platform_spec p cross join precision_option o
)
select
    platform_id,
    workload_id,
    dtype,
    run_dtype,
    peak_tflops(run_dtype, fp4_tflops, fp8_tflops, bf16_tflops) as peak_tflops,
    case run_dtype when 'fp4' then gemm_eff_fp4 when 'fp8' then gemm_eff_fp8 else gemm_eff_bf16 end as gemm_eff,
    -- serving frameworks' kernels reach less of the peak than training stacks' large GEMMs
    case run_dtype when 'fp4' then serve_eff_fp4 when 'fp8' then serve_eff_fp8 else serve_eff_bf16 end as serve_eff,
    wide_dtype,
    dtype as weight_dtype,
    case when dtype = 'fp4' then 'fp8' else dtype end as wide_weight_dtype,
    peak_tflops(wide_dtype, fp4_tflops, fp8_tflops, bf16_tflops) as wide_peak_tflops,
    case wide_dtype when 'fp8' then serve_eff_fp8 else serve_eff_bf16 end as wide_serve_eff
from formats;
