-- `gpucalc list models`: every model of the catalog, its parameters (total, and active per token
-- where it is a mixture of experts) and the shape of its layers.
select model_id, name, params_total_b, params_active_b, layers, attn_layers, moe_layers, experts, experts_active,
       q_heads, kv_heads, hidden, max_context
from model
order by model_id
