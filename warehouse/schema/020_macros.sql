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

-- Expected fraction of experts a decode step touches with b sequences, k of E experts each
-- (uniform routing): 1 - (1 - k/E)^b. Dense models touch everything.
create or replace macro experts_touched_fraction(experts, experts_active, b) as
    case when coalesce(experts, 0) <= 1 then 1.0
         else 1.0 - pow(1.0 - experts_active / experts, b) end;

-- A training layout's recompute policy and data-parallel sharding by name (training_layout
-- carries them as booleans: cheaper to rank two million of).
create or replace macro recompute_policy(full_recompute) as case when full_recompute then 'full' else 'selective' end;
create or replace macro sharding_policy(fsdp) as case when fsdp then 'fsdp' else 'zero1' end;

-- A training layout's name, e.g. 'tp2 cp2 pp4 vp2 dp8, batch 256, selective recompute, fsdp'.
create or replace macro training_layout(tp, cp, pp, vp, dp, global_batch, recompute, sharding) as
    'tp' || tp || case when cp > 1 then ' cp' || cp else '' end || ' pp' || pp
        || case when vp > 1 then ' vp' || vp else '' end || ' dp' || dp
        || ', batch ' || cast(round(global_batch) as bigint) || ', '
        || recompute || ' recompute' || case when sharding = 'fsdp' then ', fsdp' else '' end;

-- What limits a training step: the largest of its parts (compute, memory, the tensor, context
-- and pipeline transfers, the exposed gradient sync, the pipeline bubble); a transfer is named
-- by the link it crosses. The first on a tie, in that order.
create or replace macro training_bottleneck(t_compute_s, t_memory_s, t_parallel_comm_s, t_dp_exposed_s, t_bubble_s,
                                            tp, cp, pp, n_gpus, scaleup_domain_gpus) as
    case greatest(t_compute_s, t_memory_s, t_parallel_comm_s, t_dp_exposed_s, t_bubble_s)
        when t_compute_s then 'compute'
        when t_memory_s then 'memory bandwidth'
        when t_parallel_comm_s then (case when tp > scaleup_domain_gpus then 'PCIe communication'
                                          when tp * cp * pp > scaleup_domain_gpus then 'network communication'
                                          else 'scale-up communication' end)
        when t_dp_exposed_s then (case when n_gpus <= scaleup_domain_gpus then 'scale-up communication'
                                       else 'network communication' end)
        else 'pipeline bubble' end;

-- Whether a serving layout deployed on n_gpus can stand for a result measured (or asked
-- about) on gpu_count GPUs: systems full of replicas (a 16-GPU result is two 8-GPU systems),
-- each replica's scale-up group inside the case's GPUs.
create or replace macro serving_case_fits(n_gpus, scaleup_group, gpu_count, gpus_per_node) as
    n_gpus <= greatest(gpu_count, gpus_per_node) and scaleup_group <= gpu_count;

-- The calibration factor from which a serving batch meets its latency limits, both 99th
-- percentiles (serving_batch): its step per accepted token, t_step_p99_s / factor / accept_len,
-- within TPOT, and its first token, t_ttft_p99_s / factor plus the KV transfer (which
-- calibration does not scale), within TTFT. Every part of both is a time the factor divides
-- (the queue's load, arrivals x service time, does not move with it). 0 without limits;
-- infinity where the transfer alone breaks TTFT. serving_choice keeps the batches whose factor
-- reaches it; calibration_rates keeps it per batch.
create or replace macro latency_min_factor(t_step_p99_s, t_ttft_p99_s, t_kv_transfer_s, accept_len, tpot_ms, ttft_ms) as
    greatest(case when tpot_ms is not null then t_step_p99_s / accept_len / (tpot_ms / 1000.0) else 0 end,
             case when ttft_ms is null then 0
                  when ttft_ms / 1000.0 > t_kv_transfer_s then t_ttft_p99_s / (ttft_ms / 1000.0 - t_kv_transfer_s)
                  else 'infinity'::double end);

-- How a measured or requested case ranks the layouts that can stand for it, after those that
-- fit come first: serving by its per-GPU rate (the best first), any other kind by the time the
-- job takes; a layout that does not fit ranks by nothing more (case_layout, predict.sql).
create or replace macro case_layout_cost(fits, kind, tokens_per_s, n_gpus, total_tokens) as
    case when not fits then 0
         when kind = 'serving' then -tokens_per_s / n_gpus
         else total_tokens / tokens_per_s end;

-- The GPU count whose calibration a serving case takes when it stands for a deployment of
-- n_gpus: whole systems of it carry that system's (a 16-GPU case of two 8-GPU systems is
-- measured if the 8-GPU system was), part of one carries the case's own count's.
create or replace macro serving_case_calibration_gpus(gpu_count, n_gpus) as
    case when gpu_count % n_gpus = 0 then n_gpus else gpu_count end;

-- Ring all-reduce of `bytes` over n ranks at `gbps` per direction (GB/s), with per-hop
-- latency: 2(n-1)/n * S/B + 2(n-1)*alpha  (nccl-tests PERFORMANCE.md).
create or replace macro allreduce_s(bytes, n, gbps, alpha_s) as
    case when n <= 1 then 0.0
         else 2.0 * (n - 1) / n * bytes / (gbps * 1e9) + 2.0 * (n - 1) * alpha_s end;

-- All-gather / reduce-scatter / all-to-all: (n-1)/n * S/B.
create or replace macro allgather_s(bytes, n, gbps) as
    case when n <= 1 then 0.0 else (n - 1.0) / n * bytes / (gbps * 1e9) end;

-- A cost or a time as the marts rank and compare options: to 9 significant digits, as the
-- report ranks them too (reports/changes.py, SORT_DIGITS). One figure
-- reached along two paths (k systems side by side, or one system k times as long) differs in
-- its last bits, and those bits, not the stated tie-break (the faster, the fewer GPUs), would
-- decide between them.
create or replace macro rank_figure(x) as
    case when x = 0 or not isfinite(x) then x else round(x, 8 - cast(floor(log10(abs(x))) as integer)) end;

-- Cost of a finished job and per million tokens.
create or replace macro usd_per_mtok(usd_per_hour, tokens_per_s) as
    usd_per_hour * 1e6 / (3600.0 * tokens_per_s);


-- A modelling or cost assumption by name (sources/data/assumptions.csv).
create or replace macro assume(key) as (select value from assumption where name = key);

-- The share of a finite serving run's throughput its drain leaves (serving_choice): the run
-- lasts at least min_duration_s (MLPerf loadgen: 600 s of issued queries, Offline or Server),
-- an Offline run at least as long as its samples take, and then pays its tail (t_tail_s: the
-- longest requests finishing alone): run / (run + tail).
create or replace macro finite_run_share(scenario, tokens_per_s, t_tail_s, samples, output_len, min_duration_s) as
    case when t_tail_s > 0
         then greatest(min_duration_s,
                       case when scenario = 'Offline' then samples * output_len / tokens_per_s else 0 end)
              / (greatest(min_duration_s,
                          case when scenario = 'Offline' then samples * output_len / tokens_per_s else 0 end)
                 + t_tail_s)
         else 1.0 end;

-- What a workload is for: a job to run ('job'), or a benchmark definition ('benchmark') the
-- decisions leave out; a catalog row that says neither is a job.
create or replace macro workload_purpose(purpose) as coalesce(purpose, 'job');

-- The calibration group of a workload: its kind, and for serving its MLPerf scenario too.
create or replace macro scenario_kind(kind, scenario) as
    kind || case when kind = 'serving' then ':' || coalesce(scenario, 'Offline') else '' end;

-- Whether a calibration level's keys cover an estimate (or a held-out point) of this
-- workload, GPU and GPU count (a null key matches anything).
create or replace macro calibration_applies(c_workload, c_gpu, c_count, c_family, c_kind,
                                            workload, gpu, n_gpus, family, kind, scenario_kind) as
    (c_workload is null or c_workload = workload) and (c_gpu is null or c_gpu = gpu)
    and (c_count is null or c_count = n_gpus) and (c_family is null or c_family = family)
    and (c_kind is null or c_kind in (kind, scenario_kind));

-- Whether instances of `gpus_per_instance` GPUs can realise a layout: each instance must hold
-- the GPUs that talk over the scale-up link (tensor-parallel group, expert-parallel domain or
-- whole role pipeline), except in rack-scale NVLink domains (NVL72), whose trays are rented
-- together as one domain.
create or replace macro instance_holds(gpus_per_instance, scaleup_group, n_gpus, scaleup_domain_gpus) as
    gpus_per_instance >= least(scaleup_group, n_gpus) or (scaleup_domain_gpus > 8 and gpus_per_instance >= 1);

-- Geometric mean of the ratios in a group, summed in sorted order: a parallel aggregate adds
-- in whatever order threads finish, and the last bits of a float sum depend on it; the same
-- inputs must give byte-identical estimates.
create or replace macro geometric_mean(ratio) as
    exp(list_sum(list_sort(list(ln(ratio)))) / count(ratio));

-- The classes of the outside check (issue 34, docs/accuracy.md): estimates of one class err
-- alike, so each earns its own error band (062_error_band_class) and the backtest is read per
-- class. Mixtral-8x7B's 8 experts count as dense, as the outside check counts them.
create or replace macro estimate_class(kind, experts, form_factor, scenario) as
    case when kind in ('pretrain', 'finetune_lora') then 'training (LoRA and pretraining)'
         when kind <> 'serving' then replace(kind, '_', ' ')
         when coalesce(experts, 1) >= 64 then 'MoE serving (DeepSeek-R1 class)'
         when form_factor ilike 'PCIe%' then 'PCIe, NVL and workstation cards (serving)'
         when scenario = 'Interactive' then 'Interactive (dense)'
         else 'Offline / Server on SXM-class accelerators' end;
-- the classes in the order the backtest lists them: training, other non-serving kinds, then serving's
create or replace macro estimate_class_order(kind, class) as
    case when kind in ('pretrain', 'finetune_lora') then 1
         when kind <> 'serving' then 2
         else 2 + list_position(['MoE serving (DeepSeek-R1 class)', 'PCIe, NVL and workstation cards (serving)',
                                 'Interactive (dense)', 'Offline / Server on SXM-class accelerators'], class) end;

-- An error band row (062_error_band, 062_error_band_class): its confidence word, a quantile kept
-- only where at least min_backtest_points held-out points earned it, and what it rests on.
create or replace macro band_confidence(level) as
    case level when 0 then 'default' when 1 then 'measured' else 'calibrated' end;
create or replace macro band_earned(points, quantile) as
    case when points >= assume('min_backtest_points') then quantile end;
create or replace macro band_basis(points) as
    case when points >= assume('min_backtest_points') then 'backtest: ' || points || ' points'
         else 'unvalidated: ' || coalesce(points, 0) || case when points = 1 then ' point' else ' points' end end;
