-- grain: a macro, one row per serving workload x platform x dtype x n_gpus x case_index of the pass (a predict case: x scaleup_group)
-- serving_choice(pass): per serving layout, the batch with the most throughput that fits and
-- meets the latency limits under the pass's calibration factor (serving_batch(pass)), deployed
-- as one system full of replicas (or one replica spanning systems), or, for a job without a
-- demand, as whole such systems side by side; then per GPU count, the best such deployment.
-- One definition for both passes: 'uncalibrated' (topology_serving, which calibration compares
-- with the measurements) and 'calibrated' (topology_serving_calibrated, which the estimates
-- publish), so the published throughput is the one whose TTFT and TPOT meet the limits. A
-- factor row with a case_index chooses for that case of `gpucalc predict` under its own
-- factor, apart.
create or replace macro serving_choice(pass) as table
with factored as (
    select
        *,
        -- calibration scales every step: a slower-than-modelled platform needs a smaller batch.
        -- Throughput runs at the mean step; the limits hold the 99th percentiles (serving_batch)
        (t_decode_s + t_prefill_load_s) / factor as t_step_s,
        t_step_p99_s / factor / accept_len as tpot_s,
        t_ttft_p99_s / factor + t_kv_transfer_s as ttft_s,
        t_prefill_work_s / factor as t_prompt_gpu_s
    from serving_batch(pass)
),
paced as (
    -- each layout's fastest pace per token over its batches (the tail below), grouped and joined
    -- back on its key: a window over the same key sorts every batch of every layout
    select f.*, p.fastest_s_per_token
    from factored f
    join (select workload_id, platform_id, dtype, family, tp, pp, ep, disagg, case_index, band_p90,
                 min(t_step_s / accept_len) as fastest_s_per_token
          from factored
          group by all) p
      on p.workload_id is not distinct from f.workload_id and p.platform_id is not distinct from f.platform_id
     and p.dtype is not distinct from f.dtype and p.family is not distinct from f.family
     and p.tp is not distinct from f.tp and p.pp is not distinct from f.pp and p.ep is not distinct from f.ep
     and p.disagg is not distinct from f.disagg and p.case_index is not distinct from f.case_index
     and p.band_p90 is not distinct from f.band_p90
),
limited as (
    select
        *,
        fits_memory
            and factor >= latency_min_factor(t_step_p99_s, t_ttft_p99_s, t_kv_transfer_s, accept_len, tpot_ms, ttft_ms)
            as fits,
        not fits_memory as over_memory,
        b * accept_len / t_step_s * occupancy as replica_tokens_per_s,
        -- disaggregated: prefill GPU-seconds per output token (each prompt takes t_prompt_gpu_s
        -- of one GPU), at disagg_prefill_utilization so queued prompts still meet TTFT
        -- (DistServe, OSDI 2024, sizes prefill instances for that SLO, not for full load)
        case when disagg then t_prompt_gpu_s / output_len / assume('disagg_prefill_utilization') else 0 end
            as prefill_gpu_s_per_token,
        -- a run is finite, Offline or Server alike (MLPerf loadgen counts tokens until the last
        -- request completes): as it drains, the longest of the n still in flight (Offline b,
        -- Server its mean b x occupancy), about mean x ((1 - cv) + cv (ln n + 0.5772 + 1 / 2n))
        -- tokens for output spread cv (capped by the benchmark's limit), finishes at the layout's
        -- fastest pace per token
        case when output_len_cv > 0 and samples > 0
             then least(coalesce(max_output_len, 1e12),
                        output_len * ((1.0 - output_len_cv)
                                      + output_len_cv * (ln(greatest(1.0, b * occupancy)) + 0.5772
                                                         + 1.0 / (2.0 * greatest(1.0, b * occupancy)))))
                  * fastest_s_per_token
             else 0 end as t_tail_s
    from paced
),
per_layout as (
    -- throughput grows with the batch while memory and latency allow, so the best batch is the
    -- largest that fits, or the smallest of those on a plateau (rates compared to 1e-6 tokens/s,
    -- below which they differ only by rounding), counted after the run's tail, which grows
    -- with the batch; with none, the smallest, to say why. Only what depends on the batch is
    -- carried (serving_layout has the rest): arg_min copies its value at every better batch,
    -- over every batch of every layout (docs/scale.md)
    select
        workload_id, platform_id, dtype, family, tp, pp, ep, disagg, case_index, band_p90,
        arg_min(struct_pack(b, b_gpu, compute_eff, t_compute_s, t_memory_s, t_comm_s, t_step_s, tpot_s, ttft_s,
                            bottleneck, mem_per_gpu_gb, fits, over_memory, replica_tokens_per_s,
                            prefill_gpu_s_per_token, t_tail_s),
                struct_pack(unfit := not fits,
                            cost := case when fits
                                         then -round(replica_tokens_per_s
                                                     * finite_run_share(scenario, replica_tokens_per_s * replicas,
                                                                        t_tail_s, samples, output_len,
                                                                        assume('mlperf_min_duration_s')), 6)
                                         else mem_per_gpu_gb end,
                            b := b)) as batch_row
    from limited
    group by workload_id, platform_id, dtype, family, tp, pp, ep, disagg, case_index, band_p90
),
best as (
    select
        l.* replace (c.n_gpus as n_gpus, l.replicas * (c.n_gpus // l.n_gpus) as replicas),
        c.n_gpus // l.n_gpus as systems,
        p.case_index,
        p.band_p90,
        unnest(p.batch_row)
    from per_layout p
    join serving_layout l using (workload_id, platform_id, dtype, family, tp, pp, ep, disagg)
    -- Replicas need no link between them, so k systems full of replicas serve k times one, at
    -- one system's factor and batch: MLPerf's 16- and 32-GPU results are 8-GPU systems side by
    -- side. They are offered at the larger GPU counts the platform's layouts already publish
    -- (replicas spanning systems) and at any count `gpucalc whatif` or `predict` asks about
    -- (model_request, in their scratch copies), where they are whole multiples of the system.
    -- A job with a demand counts its replicas itself.
    join (select workload_id, platform_id, n_gpus from serving_layout
          union
          select r.workload_id, p.platform_id, r.gpu_count from model_request r join platform_spec p using (gpu_id)
         ) c using (workload_id, platform_id)
    where c.n_gpus = l.n_gpus
       or (c.n_gpus > l.n_gpus and c.n_gpus % l.n_gpus = 0 and l.replica_gpus <= l.gpus_per_node
           and coalesce(l.demand_tokens_per_s, 0) = 0)
),
chosen as materialized (
    select
        workload_id, platform_id, gpu_id, 'serving' as kind, dtype, family, n_gpus, case_index,
        cast(ceil(n_gpus / gpus_per_node) as integer) as nodes,
        tp, pp, ep, replicas as dp, b as batch,
        -- one replica's layout; a system full of them adds the count (a fleet sized to a demand
        -- counts its replicas itself: topology_estimate)
        case when family = 'ep'
             then 'ep' || ep || ' attention dp' || ep || ', batch ' || b_gpu || '/GPU'
             else 'tp' || tp || ' pp' || pp || ', batch ' || b
        end || disagg_note as replica_layout,
        case when family = 'ep' then 'ep' || ep || ' attention dp' || ep else 'tp' || tp || ' pp' || pp end
            || ' x' || replicas || ' replicas' || case when systems > 1 then ' in ' || systems || ' systems' else '' end
            || case when family = 'ep' then ', batch ' || b_gpu || '/GPU' else ', batch ' || b end
            || disagg_note as layout,
        -- the deployment is this many copies of one system, calibrated as that system: the
        -- GPUs whose calibration it carries (topology_estimate, gpucalc whatif)
        systems,
        n_gpus // systems as system_gpus,
        band_p90,
        disagg,
        prefill_gpu_s_per_token,
        replica_gpus,
        demand_tokens_per_s,
        scaleup_group,
        run_dtype, compute_eff, t_compute_s, t_memory_s, t_comm_s,
        t_prefill_s, t_step_s, tpot_s, ttft_s,
        bottleneck,
        mem_per_gpu_gb,
        memory_usable_gb * assume('memory_headroom') as mem_capacity_gb,
        fits,
        case when over_memory then 'needs ' || round(mem_per_gpu_gb, 1) || ' GB per GPU at batch 1, has '
                                   || round(memory_usable_gb * assume('memory_headroom'), 1)
             when not fits then 'cannot meet the TTFT/TPOT limits at any batch'
        end as refusal,
        coalesce(token_unit, 'output tokens') as token_unit,
        -- the tail costs tail / (run + tail) of the throughput (finite_run_share)
        replica_tokens_per_s * replicas
            * finite_run_share(scenario, replica_tokens_per_s * replicas, t_tail_s, samples, output_len,
                               assume('mlperf_min_duration_s')) as tokens_per_s,
        total_tokens,
        node_power_kw / gpus_per_node as kw_per_gpu
    from (select *, case when disagg then ', prefill disaggregated' else '' end as disagg_note from best)
),
offline_bound as (
    -- a Server or Interactive run of a layout serves no more than the same layout given every
    -- request at once, the Offline run of its benchmark (model, prompt and output lengths,
    -- drafter): under one factor the physics keeps it so, and this keeps the estimates so where
    -- the scenarios are calibrated apart. A case of `gpucalc predict` keeps its own factor's
    -- rate, as the backtest predicts it
    select c.* replace (least(c.tokens_per_s, coalesce(o.tokens_per_s, c.tokens_per_s)) as tokens_per_s)
    from chosen c
    left join (
        select v.workload_id, o.platform_id, o.dtype, o.family, o.tp, o.pp, o.ep, o.disagg, o.n_gpus, o.case_index,
               min(o.tokens_per_s) as tokens_per_s
        from chosen o
        join workload_spec w on w.workload_id = o.workload_id and w.scenario = 'Offline'
        join workload_spec v
          on v.model_id = w.model_id and v.scenario <> 'Offline' and v.input_len = w.input_len
         and v.output_len = w.output_len
         and coalesce(v.output_len_cv, 0) = coalesce(w.output_len_cv, 0)
         and coalesce(v.spec_draft_len, 0) = coalesce(w.spec_draft_len, 0)
         and coalesce(v.spec_accept_len, 1) = coalesce(w.spec_accept_len, 1)
        where o.case_index is null and o.fits
        group by all
    -- one condition per column, each between both sides, so the join hashes them (a row of them
    -- compared whole, or a condition on one side, is joined pair by pair); `is not distinct from`
    -- matches as comparing the rows whole did, and o.case_index is null: only estimates match
    ) o on o.case_index is not distinct from c.case_index
       and o.workload_id is not distinct from c.workload_id and o.platform_id is not distinct from c.platform_id
       and o.dtype is not distinct from c.dtype and o.family is not distinct from c.family
       and o.tp is not distinct from c.tp and o.pp is not distinct from c.pp and o.ep is not distinct from c.ep
       and o.disagg is not distinct from c.disagg and o.n_gpus is not distinct from c.n_gpus
),
fleet as (
    -- a job with a demand runs whole replicas for its decode rate, and whole replicas of
    -- prefill GPUs when disaggregated (topology_estimate publishes this fleet); counted as
    -- doubles first: an absurd demand or prompt must be refused, not overflow an integer
    select
        c.*,
        case when demand_tokens_per_s > 0 and tokens_per_s > 0
             then ceil(demand_tokens_per_s / (tokens_per_s / greatest(dp, 1))) end as replicas_needed,
        case when demand_tokens_per_s > 0
             then ceil(demand_tokens_per_s * prefill_gpu_s_per_token / replica_gpus) * replica_gpus
        end as prefill_gpus_needed
    from offline_bound c
),
bounded as (
    -- (NaN compares above every number in DuckDB, so a NaN fleet is over the limit too)
    select *, fleet_gpus_needed > assume('max_fleet_gpus') as over_fleet
    from (select *, coalesce(replicas_needed * replica_gpus, 0) + coalesce(prefill_gpus_needed, 0) as fleet_gpus_needed
          from fleet)
),
ranked as (
    select
        * exclude (replicas_needed, prefill_gpus_needed, fleet_gpus_needed, over_fleet) replace (
            fits and not over_fleet as fits,
            case when fits and over_fleet
                 then 'the demand needs a fleet of more than '
                      || format('{:,}', cast(assume('max_fleet_gpus') as bigint)) || ' GPUs (max_fleet_gpus)'
                 else refusal end as refusal),
        case when not over_fleet then cast(replicas_needed as integer) end as fleet_replicas,
        case when not over_fleet then cast(prefill_gpus_needed as bigint) end as fleet_prefill_gpus
    from bounded
)
-- such a job takes the layout whose fleet needs the fewest GPUs (on a tie the simpler
-- colocated one); any other the most throughput, discounted by the 90th-percentile error of
-- its calibration (1 + band_p90): at 16 GPUs, two systems whose 8-GPU system was measured
-- (±1.4%) against one replica spanning both at the documented efficiencies (±58%) are weighed
-- by what each can be counted on for. Further ties go to the first layout by name, so the
-- same inputs always give the same choice. A case of `gpucalc predict` keeps the best of
-- every scale-up group size: a 1-GPU result can only stand for a layout whose replicas fit in
-- one GPU, which need not be the best of its system
select unnest(arg_min(c, struct_pack(unfit := not fits,
                                     fleet := case when fits then coalesce(fleet_replicas * replica_gpus
                                                                           + fleet_prefill_gpus, 0) else 0 end,
                                     disagg := disagg,
                                     cost := case when fits then -tokens_per_s / (1.0 + coalesce(band_p90, 0.0))
                                                  else mem_per_gpu_gb end,
                                     layout := layout)))
from ranked c
group by workload_id, platform_id, dtype, n_gpus, case_index, case when case_index is not null then scaleup_group end;
