-- Inputs every model shares: platforms with their GPU's peaks and default efficiencies,
-- workloads with their model architecture, and the GPU counts worth enumerating.

create or replace macro assume(key) as (select value from assumption where name = key);

create or replace table platform_spec as
select
    p.*,
    g.family,
    g.memory_usable_gb,
    g.mem_bw_tbps,
    g.fp4_tflops,
    g.fp8_tflops,
    g.bf16_tflops,
    g.tdp_w,
    coalesce(e.gemm_eff_bf16, 0.70) as gemm_eff_bf16,
    coalesce(e.gemm_eff_fp8, e.gemm_eff_bf16, 0.70) as gemm_eff_fp8,
    coalesce(e.gemm_eff_fp4, e.gemm_eff_fp8, e.gemm_eff_bf16, 0.70) as gemm_eff_fp4,
    coalesce(e.serve_eff_bf16, 0.60) as serve_eff_bf16,
    coalesce(e.serve_eff_fp8, e.serve_eff_bf16, 0.60) as serve_eff_fp8,
    coalesce(e.serve_eff_fp4, e.serve_eff_fp8, e.serve_eff_bf16, 0.60) as serve_eff_fp4,
    coalesce(e.mem_eff, 0.80) as mem_eff,
    coalesce(e.link_eff, 0.70) as link_eff,
    -- links per direction in GB/s (specs are bidirectional totals; NICs are Gbit/s one way)
    p.scaleup_gbps_bidir / 2.0 as scaleup_gbs,
    p.host_link_gbps_bidir / 2.0 as host_gbs,
    coalesce(p.network_gbps_per_gpu, 0) / 8.0 as network_gbs
from platform p
join gpu g using (gpu_id)
left join efficiency_default e on e.family = g.family;

create or replace table workload_spec as
select
    w.*,
    m.params_total_b,
    m.params_active_b,
    m.layers,
    coalesce(m.attn_layers, m.layers) as attn_layers,
    m.hidden,
    m.q_heads,
    m.kv_heads,
    m.head_dim,
    m.vocab,
    m.experts,
    m.experts_active,
    coalesce(m.kv_dim_per_layer, 2 * m.kv_heads * m.head_dim) as kv_dim_per_layer,
    coalesce(m.state_mb_per_seq, 0) as state_mb_per_seq,
    c.params_total_b as consumer_params_b,
    c.vocab as consumer_vocab,
    c.hidden as consumer_hidden
from workload w
join model m using (model_id)
left join model c on c.model_id = w.consumer_model_id;

-- The precisions each workload is modelled in: its own dtype (what estimates use), every
-- precision a benchmark of it declares (so calibration compares like with like), and any
-- precision asked for by `gpucalc predict` (model_request).
create or replace table precision_option as
select workload_id, dtype from workload
union
select b.workload_id, normalized_precision(b.precision, w.dtype)
from benchmark_result b join workload w using (workload_id)
union
select r.workload_id,
       -- 'exact:fp8' asks for that format as is (whatif --dtype), not as a declared one
       case when r.precision like 'exact:%' then substr(r.precision, 7)
            else normalized_precision(r.precision, w.dtype) end
from model_request r join workload w using (workload_id);

-- Per platform x workload x precision: the dtype that actually runs (a GPU without FP4/FP8
-- falls back to a wider format), its dense peak and GEMM efficiency.
create or replace table platform_workload as
select
    p.platform_id,
    o.workload_id,
    o.dtype,
    effective_dtype(o.dtype, p.fp4_tflops, p.fp8_tflops) as run_dtype,
    peak_tflops(effective_dtype(o.dtype, p.fp4_tflops, p.fp8_tflops), p.fp4_tflops, p.fp8_tflops, p.bf16_tflops)
        as peak_tflops,
    case effective_dtype(o.dtype, p.fp4_tflops, p.fp8_tflops)
        when 'fp4' then p.gemm_eff_fp4 when 'fp8' then p.gemm_eff_fp8 else p.gemm_eff_bf16 end as gemm_eff,
    -- serving frameworks' kernels reach less of the peak than training stacks' large GEMMs
    case effective_dtype(o.dtype, p.fp4_tflops, p.fp8_tflops)
        when 'fp4' then p.serve_eff_fp4 when 'fp8' then p.serve_eff_fp8 else p.serve_eff_bf16 end as serve_eff
from platform_spec p cross join precision_option o;

-- GPU counts to enumerate: powers of two, whole nodes in powers of two, and every count a
-- benchmark result or a prediction request uses on that platform's GPU (so calibration and
-- predictions compare like with like).
create or replace table gpu_count_option as
select distinct platform_id, n
from (
    select platform_id, cast(pow(2, e) as integer) as n, gpus_per_node * max_nodes as cap
    from platform_spec, range(0, 18) t(e)
    union all
    select platform_id, cast(gpus_per_node * pow(2, e) as integer), gpus_per_node * max_nodes
    from platform_spec, range(0, 12) t(e)
)
where n <= cap
union
select p.platform_id, b.gpu_count
from platform_spec p join benchmark_result b on b.gpu = p.gpu_id
union
select p.platform_id, r.gpu_count
from platform_spec p join model_request r on r.gpu_id = p.gpu_id;
