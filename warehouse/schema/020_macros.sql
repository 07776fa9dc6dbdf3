-- The physics, as SQL macros so analysts can read the formulas and call them ad hoc:
--   select train_flops_per_token(70, 80, 64, 128, 4096, 'pretrain');
-- Units: FLOP, bytes, seconds, TFLOP/s, TB/s, GB/s. Formulas and their sources are in
-- docs/model.md (Kaplan 6N; PaLM attention term; Megatron TP/PP; NCCL collective costs).

-- Bytes per weight / activation element for the dtype the matmuls run in.
create or replace macro dtype_bytes(dtype) as
    case dtype when 'fp4' then 0.5 when 'fp8' then 1.0 else 2.0 end;

-- The dtype that actually runs: a missing low-precision format falls back to the next wider.
create or replace macro effective_dtype(dtype, fp4_tflops, fp8_tflops) as
    case
        when dtype = 'fp4' and fp4_tflops is not null then 'fp4'
        when dtype in ('fp4', 'fp8') and fp8_tflops is not null then 'fp8'
        else 'bf16'
    end;

-- The precision a declared one stands for. MLPerf closed-division LLM submissions quantise:
-- a declared 16-bit format on a quantised submission means the workload's own dtype
-- (NVIDIA's v4.1 calibration notes: FP8 on Hopper, FP4 where supported), so only FP4 and
-- FP8 declarations change what is modelled.
create or replace macro normalized_precision(declared, workload_dtype) as
    case
        -- "nvfp4", "mxfp4", "fp4+fp8" (FP4 weights, FP8 attention): the GEMMs run in FP4
        when regexp_matches(lower(declared), 'fp4|int4') then 'fp4'
        when regexp_matches(lower(declared), 'fp8|int8') then 'fp8'
        else workload_dtype
    end;

-- Dense peak TFLOP/s for a dtype, with the same fallback.
create or replace macro peak_tflops(dtype, fp4_tflops, fp8_tflops, bf16_tflops) as
    case
        when dtype = 'fp4' then coalesce(fp4_tflops, fp8_tflops, bf16_tflops)
        when dtype = 'fp8' then coalesce(fp8_tflops, bf16_tflops)
        else bf16_tflops
    end;

-- Training FLOPs per token: 6N (2N forward + 4N backward; LoRA skips the frozen weight
-- gradients: 4N) plus causal attention 6*L*h*d*s (half of PaLM's 12*L*h*d*s).
create or replace macro train_flops_per_token(params_active_b, layers, q_heads, head_dim, seq_len, kind) as
    (case when kind = 'finetune_lora' then 4.0 else 6.0 end) * params_active_b * 1e9
    + 6.0 * layers * q_heads * head_dim * seq_len;

-- Prefill FLOPs for one prompt of s tokens: 2*N*s plus causal attention 2*L*h*d*s^2.
create or replace macro prefill_flops(params_active_b, layers, q_heads, head_dim, s) as
    2.0 * params_active_b * 1e9 * s + 2.0 * layers * q_heads * head_dim * s * s;

-- One decode step for b sequences at mean context ctx: 2*N*b plus attention 4*L*h*d*ctx*b.
create or replace macro decode_flops(params_active_b, layers, q_heads, head_dim, b, ctx) as
    2.0 * params_active_b * 1e9 * b + 4.0 * layers * q_heads * head_dim * ctx * b;

-- KV-cache bytes per token of context.
create or replace macro kv_bytes_per_token(attn_layers, kv_dim_per_layer, kv_bytes) as
    attn_layers * kv_dim_per_layer * kv_bytes;

-- Expected fraction of experts a decode step touches with b sequences, k of E experts each
-- (uniform routing): 1 - (1 - k/E)^b. Dense models touch everything.
create or replace macro experts_touched_fraction(experts, experts_active, b) as
    case when coalesce(experts, 0) <= 1 then 1.0
         else 1.0 - pow(1.0 - experts_active / experts, b) end;

-- Weight bytes a decode step reads: the dense share always, the expert share as touched.
create or replace macro decode_weight_bytes(params_total_b, params_active_b, experts, experts_active, b, wbytes) as
    case when coalesce(experts, 0) <= 1 then params_total_b * 1e9 * wbytes
         else (params_active_b - (params_total_b - params_active_b) * experts_active
                   / (experts - experts_active)) * 1e9 * wbytes
              + (params_total_b - params_active_b) * experts / (experts - experts_active)
                   * 1e9 * wbytes * experts_touched_fraction(experts, experts_active, b)
    end;

-- Ring all-reduce of `bytes` over n ranks at `gbps` per direction (GB/s), with per-hop
-- latency: 2(n-1)/n * S/B + 2(n-1)*alpha  (nccl-tests PERFORMANCE.md).
create or replace macro allreduce_s(bytes, n, gbps, alpha_s) as
    case when n <= 1 then 0.0
         else 2.0 * (n - 1) / n * bytes / (gbps * 1e9) + 2.0 * (n - 1) * alpha_s end;

-- All-gather / reduce-scatter / all-to-all: (n-1)/n * S/B.
create or replace macro allgather_s(bytes, n, gbps) as
    case when n <= 1 then 0.0 else (n - 1.0) / n * bytes / (gbps * 1e9) end;

-- Pipeline bubble: idle fraction (p-1)/(m+p-1) for p stages and m micro-batches.
create or replace macro pipeline_bubble(p, m) as
    case when p <= 1 then 0.0 else (p - 1.0) / (m + p - 1.0) end;

-- Roofline time of a piece of work: the slower of compute and memory traffic.
create or replace macro roofline_s(flops, bytes, tflops, tbps) as
    greatest(flops / (tflops * 1e12), bytes / (tbps * 1e12));

-- Cost of a finished job and per million tokens.
create or replace macro usd_per_mtok(usd_per_hour, tokens_per_s) as
    usd_per_hour * 1e6 / (3600.0 * tokens_per_s);

-- Ownership cost per system-hour: capex straight-line over `years` plus power x PUE x price
-- plus colocation per kW-month, divided by utilisation (idle hours are still paid for).
create or replace macro owned_usd_per_hour(capex_usd, years, power_kw, pue, usd_per_kwh, colo_usd_per_kw_month, utilization) as
    (capex_usd / (years * 8760.0) + power_kw * pue * usd_per_kwh
     + colo_usd_per_kw_month * power_kw * 12.0 / 8760.0) / utilization;
