-- grain: one row per serving workload x platform x dtype x family x tp x pp x ep x disagg
-- serving_layout: every serving layout (family, tp, pp, ep, colocated or prefill-disaggregated)
-- of every serving workload on every platform, with everything about it that does not depend
-- on its batch, what each op of a decode step costs per sequence, and the system it is
-- deployed as: one system full of replicas, or one replica spanning systems (n_gpus).
-- serving_batch times its batches; calibration_choice takes its estimates' keys from it.
--
-- Two families of replica:
--   tp: tp x pp GPUs share every weight (tensor parallel inside one system, over NVLink or
--       PCIe; pipeline stages beyond it). b = sequences in the replica.
--   ep: (MoE) attention and the always-active weights on every GPU, each serving its own
--       sequences; the routed experts spread over ep GPUs, tokens sent all-to-all to their
--       experts and back around every MoE layer. b = sequences in the replica (b_gpu per GPU).
create or replace view serving_layout as
with layouts as (
    select w.workload_id, p.platform_id, tp.tp, pp.pp, 1 as ep, 'tp' as family
    from workload_spec w
    cross join platform_spec p
    cross join (values (1), (2), (4), (8)) tp(tp)
    cross join (values (1), (2), (4)) pp(pp)
    where w.kind = 'serving'
      and tp.tp <= p.gpus_per_node
      and (pp.pp = 1 or tp.tp = least(p.gpus_per_node, 8))
      and tp.tp * pp.pp <= p.gpus_per_node * p.max_nodes
    union all
    select w.workload_id, p.platform_id, 1, 1, ep.ep, 'ep'
    from workload_spec w
    cross join platform_spec p
    cross join (values (2), (4), (8), (16), (32), (64), (72)) ep(ep)
    where w.kind = 'serving' and w.experts > 1
      and ep.ep <= least(w.experts, p.gpus_per_node * p.max_nodes)
),
layout_facts as (
    select
        g.*,
        d.disagg,
        g.tp * g.pp * g.ep as replica_gpus,
        pw.dtype, pw.run_dtype, pw.peak_tflops, pw.serve_eff, pw.wide_peak_tflops, pw.wide_serve_eff,
        w.scenario, w.input_len, w.output_len, w.ttft_ms, w.tpot_ms, w.total_tokens, w.token_unit,
        w.demand_tokens_per_s,
        -- speculative decoding: the target verifies k + 1 tokens per sequence per step and
        -- keeps accept_len of them; the drafter (consumer model) drafts the block in one pass
        coalesce(w.spec_accept_len, 1.0) as accept_len,
        coalesce(w.spec_draft_len, 0) + 1 as verify_len,
        -- its weights held (an MoE drafter such as DeepSeek's MTP module holds all its experts)
        -- and the weights one drafted token computes with, plus the target's LM head it shares
        case when w.spec_draft_len > 0
             then coalesce(w.consumer_params_b, 0) * 1e9 + coalesce(w.consumer_vocab, w.vocab) * w.hidden
             else 0 end as draft_params,
        case when w.spec_draft_len > 0
             then coalesce(w.consumer_active_params_b, 0) * 1e9 + coalesce(w.consumer_vocab, w.vocab) * w.hidden
             else 0 end as draft_active_params,
        w.params_total_b, w.params_active_b, w.dense_params_b, w.routed_params_b, w.experts, w.experts_active,
        w.moe_layers, w.layers, w.attn_layers, w.hidden, w.q_heads, w.kv_dim_per_layer, w.kv_tp_shards,
        w.attn_decode_flops, w.attn_prefill_flops, w.state_mb_per_seq,
        p.gpu_id, p.gpus_per_node, p.scaleup_domain_gpus, p.memory_usable_gb, p.mem_bw_tbps, p.mem_eff,
        p.exp_per_s, p.node_power_kw,
        -- MoE models keep their non-expert GEMMs in FP8 when the experts run FP4
        case when w.experts > 1 then pw.wide_peak_tflops else pw.peak_tflops end as dense_peak_tflops,
        case when w.experts > 1 then pw.wide_serve_eff else pw.serve_eff end as dense_serve_eff,
        case when w.experts > 1 then dtype_bytes(pw.wide_weight_dtype) else dtype_bytes(pw.weight_dtype) end
            as dense_wbytes,
        dtype_bytes(pw.weight_dtype) as expert_wbytes,
        -- KV cache and attention in FP8 where the GEMMs run FP8/FP4 (TensorRT-LLM, vLLM, SGLang)
        case when pw.wide_dtype = 'fp8' then 1.0 else 2.0 end as kv_bytes,
        -- tokens go to their experts in FP8 and come back in BF16 (DeepEP, TensorRT-LLM)
        case when pw.wide_dtype = 'fp8' then 1.0 else 2.0 end + 2.0 as a2a_bytes,
        coalesce(s.factor, 1.0) as decode_factor,
        coalesce(sp.factor, 1.0) as prefill_factor,
        -- tensor parallelism rides NVLink inside the scale-up domain, PCIe beyond it
        case when g.tp <= p.scaleup_domain_gpus then p.scaleup_gbs * p.scaleup_eff else p.host_gbs * p.host_eff end
            as tp_gbs,
        case when g.tp <= p.scaleup_domain_gpus then p.scaleup_hop_s else p.host_hop_s end as tp_hop_s,
        case when g.tp * g.pp <= p.scaleup_domain_gpus then p.scaleup_gbs * p.scaleup_eff
             when g.tp * g.pp <= p.gpus_per_node then p.host_gbs * p.host_eff
             else p.network_gbs * p.network_eff end as pp_gbs,
        case when g.tp * g.pp <= p.gpus_per_node then p.scaleup_hop_s else p.network_hop_s end as pp_hop_s,
        -- expert all-to-all inside one NVLink domain (HGX: 8 GPUs, NVL72: 72) or over the network
        case when g.ep <= p.scaleup_domain_gpus then p.scaleup_gbs * p.scaleup_eff
             else p.network_gbs * p.network_eff end as a2a_gbs,
        case when g.ep <= p.scaleup_domain_gpus then assume('a2a_latency_s')
             else assume('a2a_network_latency_s') end as a2a_latency_s,
        -- where the prefill GPUs' KV cache reaches the decode GPUs: the network, or inside a
        -- single box over its host link
        coalesce(nullif(p.network_gbs * p.network_eff, 0), p.host_gbs * p.host_eff) as kv_link_gbs,
        -- the context an in-flight sequence holds on average: its prompt plus half its output,
        -- with long outputs weighted by the longer time they stay in the batch
        -- (E[L^2] / 2E[L] = mean x (1 + cv^2) / 2)
        w.input_len + w.output_len / 2.0 * (1.0 + pow(coalesce(w.output_len_cv, 0.0), 2)) as mean_ctx,
        w.output_len_cv, w.max_output_len, w.samples
    from layouts g
    -- a job with a demand may also run disaggregated: prompts on prefill GPUs of their own,
    -- the replica only decodes (the MLPerf definitions are measured colocated)
    cross join (values (false), (true)) d(disagg)
    join workload_spec w using (workload_id)
    join platform_spec p using (platform_id)
    join platform_workload pw using (platform_id, workload_id)
    left join stage_efficiency_default s on s.stage = 'decode'
    left join stage_efficiency_default sp on sp.stage = 'prefill'
    where not d.disagg or coalesce(w.demand_tokens_per_s, 0) > 0
),
shared as (
    select
        *,
        -- routed experts one GPU holds: all of them over tp x pp, or ceil(E / ep) of E
        case when family = 'ep' then ceil(experts / ep) / experts else 1.0 / (tp * pp) end as expert_share,
        case when family = 'ep' then 1.0 else 1.0 / (tp * pp) end as dense_share,
        case when family = 'ep' then assume('moe_imbalance') else 1.0 end as imbalance,
        attn_layers * kv_dim_per_layer * kv_bytes as kv_bytes_per_token
    from layout_facts
),
weighed as (
    select
        *,
        -- weights in GB: parameters (billions) x bytes, as this GPU holds them; the drafter rides
        -- along with every attention shard
        dense_params_b * dense_wbytes * dense_share + routed_params_b * expert_wbytes * expert_share
            -- the drafter's experts spread over the expert-parallel GPUs like the target's
            + draft_params / 1e9 * dense_wbytes * (case when family = 'ep' then expert_share else dense_share end)
            as weights_gb,
        -- with pp stages the batch moves as pp micro-batches and every stage streams its weights
        -- once per micro-batch: pipeline parallelism buys memory, not bandwidth
        dense_params_b * 1e9 * dense_wbytes * dense_share * pp / (mem_bw_tbps * 1e12 * mem_eff)
            as t_dense_memory_s,
        -- the drafter's weights (and the target's LM head it shares), streamed once per step
        draft_params * dense_wbytes * (case when family = 'ep' then expert_share else dense_share end)
            / (mem_bw_tbps * 1e12 * mem_eff) as t_draft_memory_s,
        -- prefill of one prompt as the GPU that runs it would alone: its GEMMs (experts at the
        -- busiest rank's load) and causal attention over the prompt
        (2.0 * dense_params_b * 1e9 * input_len / (dense_peak_tflops * 1e12 * dense_serve_eff)
         + 2.0 * (params_active_b - dense_params_b) * 1e9 * input_len * imbalance
             / (peak_tflops * 1e12 * serve_eff)
         + attn_layers * attn_prefill_flops * input_len * input_len / 2.0
             / (wide_peak_tflops * 1e12 * wide_serve_eff)) / prefill_factor as t_prefill_work_s,
        -- its collectives on one GPU: tp all-reduces of the prompt's activations for this stage's
        -- layers, or the prompt's tokens sent to their experts and back
        case when family = 'ep'
             then moe_layers * (input_len * hidden * a2a_bytes * least(experts_active, ep) * (ep - 1.0) / ep
                                / (a2a_gbs * 1e9) + a2a_latency_s)
             else 2.0 * layers / pp * allreduce_s(input_len * hidden * 2.0, tp, tp_gbs, tp_hop_s) end
            as t_prefill_comm_s
    from shared
),
deployed as (
    select
        *,
        -- time to first token: tp replicas share the work, a prompt passes the pp stages in
        -- turn; ep: the prompt's own GPU runs attention and the always-active GEMMs, the
        -- experts are spread over the ep GPUs
        case when family = 'ep'
             then t_prefill_work_s
                  - 2.0 * (params_active_b - dense_params_b) * 1e9 * input_len * imbalance
                      / (peak_tflops * 1e12 * serve_eff * prefill_factor) * (1.0 - 1.0 / ep)
                  + t_prefill_comm_s
             else t_prefill_work_s / tp + t_prefill_comm_s * pp
                  + case when pp > 1 then (pp - 1) * (input_len * hidden * 2.0 / (pp_gbs * 1e9) + pp_hop_s)
                         else 0 end end as t_prefill_s,
        -- continuous batching spreads arriving prompts' work over the replica, while each GPU
        -- moves the activations of the prompts it serves (tp: all of them; ep: its own)
        t_prefill_work_s / replica_gpus as t_prefill_share_s,
        -- GPUs that must share one scale-up domain (an instance must hold them)
        case when family = 'ep' then least(ep, scaleup_domain_gpus) else tp end as scaleup_group,
        -- disaggregated, the prompts run elsewhere and their KV cache arrives over the network
        case when disagg then input_len * kv_bytes_per_token / (kv_link_gbs * 1e9) else 0 end as t_kv_transfer_s,
        cast(greatest(1, gpus_per_node // replica_gpus) as integer) as replicas,
        cast(greatest(replica_gpus, (gpus_per_node // replica_gpus) * replica_gpus) as integer) as n_gpus,
        -- sequences in the replica per sequence on one GPU (b = b_gpu x this): ep, every GPU
        -- serves its own; tp, the GPUs share them
        case when family = 'ep' then ep else 1 end as seqs_per_gpu_seq
    from weighed
)
-- A decode step, op by op, per sequence this GPU serves (b_gpu; modeling notes §2): each op's
-- time is linear in the batch, so serving_batch multiplies these by b_gpu (and adds the fixed
-- latencies) instead of deriving every op from the layout again for each of its ~20 batches
-- (docs/scale.md). The experts a step
-- touches are the exception: 1 - (1 - k/E)^tokens, per batch.
select
    *,
    -- tokens decoded per step, per sequence of this GPU, by the GPUs that hold its weights
    seqs_per_gpu_seq * verify_len as step_tokens_per_seq,
    -- always-active GEMMs: every GPU of the replica shares the step's tokens
    2.0 * dense_params_b * 1e9 * seqs_per_gpu_seq * verify_len / replica_gpus
        / (dense_peak_tflops * 1e12 * dense_serve_eff * decode_factor) as t_dense_compute_s_per_seq,
    2.0 * (params_active_b - dense_params_b) * 1e9 * seqs_per_gpu_seq * verify_len / replica_gpus * imbalance
        / (peak_tflops * 1e12 * serve_eff * decode_factor) as t_expert_compute_s_per_seq,
    -- every routed expert this GPU holds, streamed once per micro-batch (times the share a step touches)
    routed_params_b * 1e9 * expert_wbytes * expert_share * pp / (mem_bw_tbps * 1e12 * mem_eff) as t_expert_weights_s,
    -- attention and its KV cache: sequences whose attention one GPU (or one tensor-parallel
    -- group) holds, tp: the replica's; ep: each GPU's own
    verify_len * mean_ctx * attn_layers * attn_decode_flops / (tp * pp)
        / (wide_peak_tflops * 1e12 * wide_serve_eff * decode_factor) as t_attn_compute_s_per_seq,
    -- softmax: one exponential per head per cached token, on the special-function units
    case when exp_per_s > 0 then verify_len * mean_ctx * attn_layers * q_heads / (tp * pp) / exp_per_s else 0 end
        as t_attn_exp_s_per_seq,
    (mean_ctx * kv_bytes_per_token / (pp * least(tp, kv_tp_shards)) + state_mb_per_seq * 1e6 / (tp * pp)) / 1e9
        as kv_gb_per_seq,
    (mean_ctx * kv_bytes_per_token / (pp * least(tp, kv_tp_shards)) + state_mb_per_seq * 1e6 / (tp * pp))
        / (mem_bw_tbps * 1e12 * mem_eff) as t_attn_memory_s_per_seq,
    -- drafting: the drafter (and the target's LM head it shares) over the block
    2.0 * draft_active_params * seqs_per_gpu_seq * verify_len / replica_gpus
        / (peak_tflops * 1e12 * serve_eff * decode_factor) as t_draft_compute_s_per_seq,
    -- tp all-reduces of this stage's activations per layer, and the hand-over between pp
    -- stages: bandwidth per sequence, latency per step (allreduce_s is linear in both)
    2.0 * layers * allreduce_s(seqs_per_gpu_seq / pp * verify_len * hidden * 2.0, tp, tp_gbs, 0.0)
        + case when pp > 1 then (pp - 1) * (seqs_per_gpu_seq / pp * verify_len * hidden * 2.0 / (pp_gbs * 1e9))
               else 0 end as t_tp_pp_comm_s_per_seq,
    2.0 * layers * allreduce_s(0.0, tp, tp_gbs, tp_hop_s) + case when pp > 1 then (pp - 1) * pp_hop_s else 0 end
        as t_tp_pp_comm_s_fixed,
    -- ep: each GPU's tokens to their experts and back around every MoE layer
    case when family = 'ep'
         then moe_layers * verify_len * hidden * a2a_bytes * least(experts_active, ep) * (ep - 1.0) / ep
              * imbalance / (a2a_gbs * 1e9)
         else 0 end as t_a2a_s_per_seq,
    case when family = 'ep' then moe_layers * a2a_latency_s else 0 end as t_a2a_s_fixed,
    -- with continuous batching each step also carries the prefill of arriving requests: each
    -- prompt adds t_prefill_one_s to the steps of the GPUs that serve it, and a batch turns
    -- over once every output_len / accept_len steps; disaggregated, the prompts run elsewhere
    -- (t_kv_transfer_s)
    t_prefill_one_s / (output_len / accept_len) as t_prefill_load_s_per_seq
from (select
          *,
          case when disagg then 0 else seqs_per_gpu_seq * t_prefill_share_s + t_prefill_comm_s end
              as t_prefill_one_s
      from deployed);
