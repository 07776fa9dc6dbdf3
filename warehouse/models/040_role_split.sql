-- grain: one row per role-pipeline workload x platform x dtype x placement
-- role_split: what each role of a role pipeline costs on one GPU of every platform. A role
-- pipeline (DFlash drafter training) has two roles: the frozen target's forward makes hidden
-- states (the producer), the drafter trains on them (the consumer). One row per workload x
-- platform x precision x placement of the roles on a GPU:
--   split:  a GPU runs one role; the target is spread over the narrowest tensor-parallel group
--           (inside the scale-up domain) whose share of it fits one GPU;
--   shared: every GPU runs both roles in turn (the target forward, then a drafter step on the
--           hidden states it just made), so it holds its share of the target and a drafter.
-- 041_topology_role.sql places the roles on GPUs, nodes and platforms.
create or replace table role_split as
with per_tp as (
    select
        w.workload_id, p.platform_id, pw.dtype, tp.tp,
        p.gpu_id, p.gpus_per_node, p.max_nodes, p.node_power_kw,
        -- a pipeline inside one node (or one scale-up domain: an NVL72 rack) needs no network
        greatest(p.scaleup_domain_gpus, p.gpus_per_node) as single_node_gpus,
        pw.run_dtype, pw.peak_tflops,
        -- the producer is a serving engine (SGLang capture server); the consumer a training stack
        pw.serve_eff * coalesce(fp.factor, 0.75) as producer_eff,
        pw.gemm_eff * coalesce(fc.factor, 0.50) as consumer_eff,
        -- hidden states reach another GPU of the node over NVLink/IF, or via host memory over PCIe
        case when p.scaleup_kind = 'pcie-host' or p.scaleup_gbs = 0 then p.host_gbs * p.host_copy_eff
             else p.scaleup_gbs * p.scaleup_eff end as link_gbs,
        case when p.scaleup_kind = 'pcie-host' or p.scaleup_gbs = 0 then 'PCIe transfer via host'
             else 'scale-up transfer' end as transfer_name,
        -- ... or a GPU of another node over the GPU's NIC
        p.network_gbs * p.network_eff as network_gbs,
        w.producer_gflop_per_token, w.transfer_bytes_per_token, w.consumer_gflop_per_unit, w.units_per_token,
        w.total_tokens, w.token_unit,
        -- data-parallel drafters all-reduce the drafter's gradients (bf16) once per optimizer step
        -- of the recipe's global batch (sequences of seq_len target tokens; 041_topology_role.sql)
        w.seq_len, w.global_batch_seqs, coalesce(w.consumer_params_b, 0) * 1e9 * 2.0 as drafter_grad_bytes,
        -- seconds per target token on one tensor-parallel group: the GEMMs split tp ways, plus
        -- Megatron's two all-reduces of the sequence's activations per layer in the forward (the
        -- cost 020_topology_training.sql charges); a serving engine runs them after the GEMMs
        -- they follow rather than hidden behind them, so the two add up
        w.producer_gflop_per_token * 1e9
            / (tp.tp * pw.peak_tflops * 1e12 * pw.serve_eff * coalesce(fp.factor, 0.75)) as t_target_gemm_s,
        2.0 * w.layers * allreduce_s(w.seq_len * w.hidden * 2.0, tp.tp, p.scaleup_gbs * p.scaleup_eff,
                                     p.scaleup_hop_s) / w.seq_len as t_target_tp_s,
        -- the producer holds its share of the frozen target as stored (platform_workload.weight_dtype)
        -- plus one sequence of activations
        (w.params_total_b * 1e9 * dtype_bytes(pw.weight_dtype) + 34.0 * w.seq_len * w.hidden) / tp.tp / 1e9
            as producer_mem_gb,
        -- the consumer trains the drafter (16 B/param AdamW mixed precision) next to the target's
        -- frozen embedding and LM head (2 x vocab x hidden in bf16)
        (coalesce(w.consumer_params_b, 0) * 1e9 * 16.0
         + 2.0 * coalesce(w.consumer_vocab, w.vocab) * coalesce(w.consumer_hidden, w.hidden) * 2.0
         + 34.0 * w.seq_len * w.hidden * 5) / 1e9 as consumer_mem_gb,
        p.memory_usable_gb * assume('memory_headroom') as capacity_gb
    from workload_spec w
    cross join platform_spec p
    join platform_workload pw using (platform_id, workload_id)
    cross join (values (1), (2), (4), (8)) tp(tp)
    left join stage_efficiency_default fp on fp.stage = 'producer'
    left join stage_efficiency_default fc on fc.stage = 'consumer'
    where w.kind = 'role_pipeline' and tp.tp <= least(p.scaleup_domain_gpus, p.gpus_per_node)
),
placed as (
    select
        r.*, pl.placement,
        -- what one GPU of this placement holds
        case pl.placement when 'split' then r.producer_mem_gb
                          else r.producer_mem_gb + r.consumer_mem_gb end as target_gpu_mem_gb
    from per_tp r
    cross join (values ('split'), ('shared')) pl(placement)
),
-- a wider group only adds all-reduces (the GEMM work per GPU is the same), so each placement
-- takes the narrowest tp that fits; when none does, the widest, to say how far off it is
chosen as (
    select unnest(arg_min(placed, struct_pack(unfit := target_gpu_mem_gb > capacity_gb,
                                              width := case when target_gpu_mem_gb <= capacity_gb then tp
                                                            else -tp end)))
    from placed
    group by workload_id, platform_id, dtype, placement
)
select
    * exclude (t_target_gemm_s, t_target_tp_s),
    -- target tokens per second each GPU adds in each role
    1.0 / (tp * (t_target_gemm_s + t_target_tp_s)) as producer_rate_gpu,
    peak_tflops * 1e12 * consumer_eff / (consumer_gflop_per_unit * 1e9 * units_per_token) as consumer_rate_gpu,
    t_target_tp_s / (t_target_gemm_s + t_target_tp_s) as target_tp_share
from chosen;
