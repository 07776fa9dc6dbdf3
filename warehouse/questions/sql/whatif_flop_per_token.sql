-- The FLOPs per token a serving or training workload does (?: the workload).
select case when kind = 'serving'
            -- a lower bound: 2 FLOPs per active weight for each output and input token
            then 2e9 * params_active_b * (coalesce(input_len, 0) + output_len) / output_len
            else train_flops_per_token(params_active_b, attn_layers, q_heads, head_dim, seq_len, kind)
       end
from workload_spec where workload_id = ?
