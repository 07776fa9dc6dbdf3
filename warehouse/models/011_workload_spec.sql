-- grain: one row per workload
-- workload_spec: every workload with its model's shape, the MoE split of its parameters
-- (always-active vs routed experts) and its attention costs per cached token.
create or replace table workload_spec as
with shaped as (
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
        coalesce(m.experts, 0) as experts,
        m.experts_active,
        -- routed-expert layers; a dense model has none
        case when coalesce(m.experts, 0) > 1 then coalesce(m.moe_layers, m.layers) else 0 end as moe_layers,
        coalesce(m.kv_dim_per_layer, 2 * m.kv_heads * m.head_dim) as kv_dim_per_layer,
        coalesce(m.state_mb_per_seq, 0) as state_mb_per_seq,
        -- attention FLOPs per query token per cached token per layer (decode), and per
        -- (query, key) pair per layer (prefill): QK^T and PV, 2 x heads x (d_k + d_v); MLA
        -- decodes in its absorbed form over the 576-element latent (model.csv says so)
        coalesce(m.attn_decode_flops, 4.0 * m.q_heads * m.head_dim) as attn_decode_flops,
        coalesce(m.attn_prefill_flops, 4.0 * m.q_heads * m.head_dim) as attn_prefill_flops,
        -- tensor parallelism splits the KV cache by KV head; MLA's latent is one per token
        coalesce(m.kv_tp_shards, m.kv_heads) as kv_tp_shards,
        c.params_total_b as consumer_params_b,
        c.params_active_b as consumer_active_params_b,
        c.vocab as consumer_vocab,
        c.hidden as consumer_hidden
    from workload w
    join model m using (model_id)
    left join model c on c.model_id = w.consumer_model_id
)
select
    *,
    -- A token reads the always-active weights (attention, dense FFN, shared experts,
    -- embeddings) and k of the E routed experts: active = dense + k/E x routed, total =
    -- dense + routed, so routed = (total - active) x E / (E - k).
    case when experts > 1
         then params_active_b - (params_total_b - params_active_b) * experts_active / (experts - experts_active)
         else params_active_b end as dense_params_b,
    case when experts > 1 then (params_total_b - params_active_b) * experts / (experts - experts_active)
         else 0 end as routed_params_b
from shaped;
