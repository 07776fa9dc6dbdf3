-- grain: one row per role-pipeline workload x platform x dtype x placement x n_gpus x producers x consumer_platform_id
-- topology_role: every way of placing a role pipeline's roles (role_split) on GPUs, with the
-- rate of each stage and the slowest one. Placements:
--   split         P target GPUs + C drafter GPUs of one platform. Inside one node (or scale-up
--                 domain) hidden states cross NVLink or PCIe; over several nodes they cross the
--                 network (all of them, conservatively). Up to 16 GPUs every split is enumerated;
--                 beyond, only the splits next to the balance point, where the target GPUs and
--                 the drafters keep pace (the slower side decides the rate, so the best split is
--                 among them and the grid of a 6,144-chip TPU slice stays small);
--   shared        every GPU runs the target and the drafter in turn: no hidden states move, and a
--                 GPU makes 1 / (1/producer rate + 1/consumer rate) target tokens per second;
--   two-platform  P target GPUs on one platform, C = 1..8 drafter GPUs of one node of another GPU
--                 type, hidden states over both NICs. The estimate prices a row with one
--                 platform's quotes, so these rows stay out of topology_candidate; `gpucalc
--                 whatif` prices each part.
-- Targets that do not fit one GPU run tensor-parallel (tp, within the scale-up domain); the
-- target GPUs then come in whole groups of tp.
-- More than one drafter GPU trains the drafter data-parallel: each optimizer step of the job's
-- global batch (global_batch_seqs sequences; without one, one sequence per drafter, SpecForge's
-- batch_size 1) ends in an all-reduce of its bf16 gradients, of which what outlasts the last
-- sequence's backward (two thirds of its drafter time: PyTorch DDP overlaps the two, Li et al.,
-- VLDB 2020) is exposed. Each drafter needs one sequence of the global batch per step at least, so
-- a layout with more drafters than the global batch has sequences is refused: it would change
-- the batch the recipe's learning rate was tuned for.
-- A view, not a table: every platform pair is a large grid (millions of pairs at scale,
-- docs/scale.md) that only `whatif` asks about, one pair at a time; the nightly reads
-- the split and shared rows (topology_candidate), and DuckDB prunes the pair branch for it.
create or replace view topology_role as
with counted as (
    select r.*, o.n
    from role_split r
    join gpu_count_option o using (platform_id)
),
paced as (
    -- the target GPUs at which the target GPUs and the drafters keep pace; inside a node the
    -- drafters are fed over its links, across nodes each over its own NIC
    select *, n * drafter_rate / (producer_rate_gpu + drafter_rate) as balance_producers
    from (select *, least(consumer_rate_gpu, (case when n <= single_node_gpus then link_gbs else network_gbs end)
                                             * 1e9 / transfer_bytes_per_token) as drafter_rate
          from counted
          where placement = 'split' and n >= 2 and (n <= single_node_gpus or network_gbs > 0))
),
split as (
    -- the slower side decides the rate, so the best split is next to the balance point
    select * exclude (drafter_rate, balance_producers),
           unnest(case when n <= least(16, single_node_gpus) then range(1, (n - 1) // tp + 1)
                       else range(greatest(1, floor(balance_producers / tp)::bigint - 2),
                                  least((n - 1) // tp, ceil(balance_producers / tp)::bigint + 2) + 1) end) * tp
               as producers
    from paced
),
in_node as (
    select *, n - producers as consumers, link_gbs * (n - producers) as transfer_gbs, link_gbs as sync_gbs,
           n as scaleup_group   -- the whole pipeline talks over the node's links: one instance holds it
    from split
    where n <= single_node_gpus
),
across_nodes as (
    select * exclude (transfer_name), n - producers as consumers,
           network_gbs * least(producers, n - producers) as transfer_gbs, 'network transfer' as transfer_name,
           network_gbs as sync_gbs,
           gpus_per_node as scaleup_group   -- whole nodes
    from split
    where n > single_node_gpus
),
one_platform as (
    select * from in_node
    union all by name
    select * from across_nodes
    union all by name
    select * exclude (transfer_name), n as producers, n as consumers, null::double as transfer_gbs,
           null::varchar as transfer_name,
           case when n <= single_node_gpus then link_gbs else network_gbs end as sync_gbs,
           least(n, single_node_gpus) as scaleup_group
    from counted where placement = 'shared' and n % tp = 0
),
layouts as (
    select
        workload_id, platform_id, gpu_id, dtype, placement, tp, producers, consumers,
        case when placement = 'shared' then n else producers + consumers end as n_gpus,
        cast(ceil(n / gpus_per_node) as integer) as nodes,
        scaleup_group, run_dtype, run_dtype as consumer_run_dtype, producer_eff,
        producer_rate_gpu, consumer_rate_gpu, target_tp_share, transfer_gbs, transfer_name,
        producer_mem_gb, consumer_mem_gb, capacity_gb, capacity_gb as consumer_capacity_gb,
        platform_id as consumer_platform_id, gpu_id as consumer_gpu_id,
        n * node_power_kw / gpus_per_node as kw,
        transfer_bytes_per_token, total_tokens, token_unit,
        seq_len, global_batch_seqs, drafter_grad_bytes, sync_gbs
    from one_platform
    union all by name
    select
        x.workload_id, x.platform_id, x.gpu_id, x.dtype, 'two-platform' as placement, x.tp,
        o.n as producers, c.c as consumers, o.n + c.c as n_gpus,
        cast(ceil(o.n / x.gpus_per_node) + 1 as integer) as nodes,
        o.n as scaleup_group, x.run_dtype, y.run_dtype as consumer_run_dtype, x.producer_eff,
        x.producer_rate_gpu, y.consumer_rate_gpu, x.target_tp_share,
        least(o.n * x.network_gbs, c.c * y.network_gbs) as transfer_gbs, 'network transfer' as transfer_name,
        x.producer_mem_gb, y.consumer_mem_gb, x.capacity_gb, y.capacity_gb as consumer_capacity_gb,
        y.platform_id as consumer_platform_id, y.gpu_id as consumer_gpu_id,
        o.n * x.node_power_kw / x.gpus_per_node + c.c * y.node_power_kw / y.gpus_per_node as kw,
        x.transfer_bytes_per_token, x.total_tokens, x.token_unit,
        x.seq_len, x.global_batch_seqs, x.drafter_grad_bytes, y.link_gbs as sync_gbs   -- drafters share a node
    from role_split x
    join gpu_count_option o on o.platform_id = x.platform_id and o.n <= x.single_node_gpus and o.n % x.tp = 0
    join role_split y
      on y.workload_id = x.workload_id and y.dtype = x.dtype and y.placement = 'split' and y.gpu_id <> x.gpu_id
    cross join range(1, 9) c(c)
    where x.placement = 'split' and c.c <= y.gpus_per_node and x.network_gbs > 0 and y.network_gbs > 0
),
synced as (
    select
        *,
        coalesce(global_batch_seqs, consumers) * seq_len as step_tokens,
        greatest(0.0, allreduce_s(drafter_grad_bytes, consumers, sync_gbs, 0.0)
                      - 2.0 / 3.0 * seq_len / consumer_rate_gpu) as t_sync_exposed_s,
        consumers <= coalesce(global_batch_seqs, consumers) as batch_fits
    from layouts
),
rates as (
    select
        *,
        producers * producer_rate_gpu as producer_rate,
        transfer_gbs * 1e9 / transfer_bytes_per_token as transfer_rate,
        -- the drafters' step: their share of the global batch, then the exposed all-reduce
        step_tokens / (step_tokens / (consumers * consumer_rate_gpu) + t_sync_exposed_s) as consumer_rate,
        t_sync_exposed_s * consumers * consumer_rate_gpu / step_tokens as sync_share,
        case placement when 'shared' then producer_mem_gb + consumer_mem_gb
                       when 'two-platform' then producer_mem_gb
                       else greatest(producer_mem_gb, consumer_mem_gb) end as mem_per_gpu_gb
    from synced
)
select
    workload_id, platform_id, gpu_id, 'role_pipeline' as kind, dtype, n_gpus, nodes,
    placement, tp, producers, consumers, consumer_platform_id, consumer_gpu_id,
    case placement
        when 'shared' then n_gpus || ' shared (target and drafter on every GPU)'
        when 'two-platform' then producers || '+' || consumers || ' (' || producers || ' target on ' || platform_id
                                 || ', ' || consumers || ' drafter on ' || consumer_platform_id || ')'
        else producers || '+' || consumers || ' (' || producers || ' target, ' || consumers || ' drafter)' end
        || case when tp > 1 then ', target tp' || tp else '' end
        || case when placement = 'split' and transfer_name = 'network transfer' then ', ' || nodes || ' nodes'
                else '' end as layout,
    scaleup_group, run_dtype, consumer_run_dtype,
    producer_eff as compute_eff,
    1.0 / producer_rate as t_compute_s,          -- seconds per token in each stage
    1.0 / transfer_rate as t_comm_s,
    1.0 / consumer_rate as t_consumer_s,
    producer_rate, transfer_rate, consumer_rate,
    transfer_name as transfer_link,              -- what carries hidden states (none when shared)
    -- the share of the target forward's time spent in tensor-parallel all-reduces
    target_tp_share,
    case when placement = 'shared' and producer_rate <= consumer_rate then 'compute (target forward)'
         when placement <> 'shared' and least(producer_rate, transfer_rate, consumer_rate) = producer_rate
             then 'compute (target forward)'
         when placement <> 'shared' and least(producer_rate, transfer_rate, consumer_rate) = transfer_rate
             then transfer_name
         -- the drafters limit: by their gradient all-reduce where it takes most of their step
         when sync_share > 1.0 then 'drafter gradient all-reduce'
         else 'compute (drafter training)' end as bottleneck,
    producer_mem_gb, consumer_mem_gb,
    mem_per_gpu_gb,
    capacity_gb as mem_capacity_gb,
    consumer_capacity_gb as consumer_mem_capacity_gb,
    mem_per_gpu_gb <= capacity_gb and consumer_mem_gb <= consumer_capacity_gb and batch_fits as fits,
    batch_fits, global_batch_seqs, t_sync_exposed_s,
    -- a shared GPU spends 1/producer + 1/consumer seconds per token on the two roles in turn
    case when placement = 'shared' then 1.0 / (1.0 / producer_rate + 1.0 / consumer_rate)
         else least(producer_rate, transfer_rate, consumer_rate) end as tokens_per_s,
    transfer_bytes_per_token, total_tokens, token_unit,
    kw / n_gpus as kw_per_gpu
from rates;
