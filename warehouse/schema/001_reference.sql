-- Reference layer: the bundled catalog, replaced as a whole on every run.
-- No PRIMARY KEY / UNIQUE / sequences: the warehouse must move to DuckLake unchanged;
-- uniqueness is a validation rule instead (warehouse/loading/validation.py).

create table if not exists gpu (
    gpu_id varchar,            -- canonical accelerator id, e.g. 'H100-SXM'
    vendor varchar,
    name varchar,
    family varchar,            -- calibration group, e.g. 'nvidia-hopper'
    form_factor varchar,
    arch varchar,
    launch_year integer,
    memory_gb double,          -- physical memory as printed
    memory_usable_gb double,   -- what a job can allocate
    memory_type varchar,
    mem_bw_tbps double,        -- memory bandwidth, TB/s
    fp4_tflops double,         -- DENSE tensor peaks; null where the format is missing
    fp8_tflops double,
    bf16_tflops double,
    tf32_tflops double,
    fp32_tflops double,
    scaleup_gbps_bidir double, -- NVLink / Infinity Fabric per GPU, both directions, GB/s
    host_link_gbps_bidir double,
    tdp_w double,
    price_usd_low double,
    price_usd_high double,
    confidence varchar,        -- datasheet | secondary | estimate
    source varchar,
    source_date date
);

create table if not exists platform (
    platform_id varchar,       -- e.g. 'hgx-b200-8', 'gb200-nvl72', 'ws-rtxpro6000-4'
    name varchar,
    gpu_id varchar,
    gpus_per_node integer,     -- GPUs in one rentable or buyable system
    scaleup_domain_gpus integer,
    scaleup_kind varchar,      -- nvlink-switch | infinity-fabric | pcie-host | ...
    scaleup_gbps_bidir double, -- per GPU inside the scale-up domain, both directions
    host_link_gbps_bidir double,
    network_gbps_per_gpu double, -- scale-out line rate per GPU, Gbit/s one way
    node_power_kw double,
    capex_usd_per_node double,
    max_nodes integer,
    source varchar
);

create table if not exists model (
    model_id varchar,
    name varchar,
    params_total_b double,
    params_active_b double,
    layers integer,
    attn_layers integer,
    hidden integer,
    ffn integer,
    q_heads integer,
    kv_heads integer,
    head_dim integer,
    vocab integer,
    experts integer,
    experts_active integer,
    kv_dim_per_layer integer,  -- cached elements per token per attention layer
    state_mb_per_seq double,   -- fixed recurrent state per sequence (linear attention)
    source varchar
);

create table if not exists workload (
    workload_id varchar,
    name varchar,
    kind varchar,              -- pretrain | finetune_lora | finetune_full | serving | role_pipeline
    model_id varchar,
    dtype varchar,             -- fp4 | fp8 | bf16
    total_tokens double,
    epochs double,
    seq_len double,
    global_batch_seqs double,
    input_len double,
    output_len double,
    scenario varchar,
    ttft_ms double,
    tpot_ms double,
    spec_accept_len double,
    producer_gflop_per_token double,
    transfer_bytes_per_token double,
    consumer_model_id varchar,
    consumer_gflop_per_unit double,
    units_per_token double,
    token_unit varchar,
    source varchar
);

-- Configurations `gpucalc predict` asks the models for, besides what they enumerate anyway
-- (empty in the nightly warehouse; filled in the scratch copy a prediction runs in).
create table if not exists model_request (
    workload_id varchar,
    gpu_id varchar,
    gpu_count integer,
    precision varchar
);
alter table model_request add column if not exists case_index integer;   -- the prediction's row
alter table model_request add column if not exists nodes integer;
alter table model_request add column if not exists role_split varchar;
alter table model_request add column if not exists global_batch_size double;

-- Accelerators `gpucalc predict --holdout` predicts as if never measured (empty in the nightly
-- warehouse): their results still count in the backtest, which decides the levels calibration
-- trusts and the bands, but calibrate nothing (057_calibration.sql), so a held-out case gets
-- the very prediction the backtest makes for that point.
create table if not exists holdout_gpu (gpu_id varchar);

alter table workload add column if not exists spec_draft_len double;  -- speculative decoding: k drafted

create table if not exists gpu_alias (
    alias varchar,             -- a spelling some source uses; matched on lower(trim(alias))
    gpu_id varchar,
    note varchar
);

-- What a provider documents an instance type to carry; beats the name a price row gives it
-- (sources/gpu_identity/). instance_type is exact or a pattern with '*'.
create table if not exists gpu_instance (
    provider varchar,
    instance_type varchar,
    gpu_id varchar,
    gpus_per_instance double,  -- set only where a source's count is wrong
    note varchar,
    source varchar
);

create table if not exists efficiency_default (
    family varchar,            -- accelerator family (gpu.family)
    gemm_eff_bf16 double,      -- large-GEMM throughput / dense peak
    gemm_eff_fp8 double,
    gemm_eff_fp4 double,
    mem_eff double,            -- achieved / spec memory bandwidth
    source varchar
);
alter table efficiency_default add column if not exists serve_eff_bf16 double;  -- GEMMs in serving frameworks
alter table efficiency_default add column if not exists serve_eff_fp8 double;
alter table efficiency_default add column if not exists serve_eff_fp4 double;

create table if not exists stage_efficiency_default (
    stage varchar,             -- pretrain | finetune_lora | prefill | decode | producer | consumer
    factor double,             -- share of GEMM throughput a whole step reaches
    source varchar
);

-- Managed-API prices per million tokens: the baseline self-hosted serving has to beat.
create table if not exists api_price (
    model_id varchar,
    provider varchar,
    usd_per_mtok_input double,
    usd_per_mtok_output double,
    observed_at date,
    source varchar,
    note varchar
);

create table if not exists assumption (
    name varchar,              -- e.g. 'pue', 'usd_per_kwh', 'ownership_years'
    value double,
    unit varchar,
    source varchar
);

-- Added after the first release (warehouses built earlier gain them).
alter table model add column if not exists max_context integer;  -- most tokens of prompt + output it takes
alter table model add column if not exists family varchar;  -- the model family the backtest leaves out whole
alter table gpu add column if not exists sfu_exp_per_s_t double;        -- softmax exponentials, T/s
alter table gpu add column if not exists sustained_clock_ratio double;  -- tensor clock under the power cap / peak's
alter table model add column if not exists attn_decode_flops double;    -- per query token per cached token per layer
alter table model add column if not exists attn_prefill_flops double;   -- per (query, key) pair per layer
alter table model add column if not exists kv_tp_shards integer;        -- ways TP splits the KV cache (MLA: 1)
alter table model add column if not exists moe_layers integer;          -- layers with routed experts
alter table workload add column if not exists output_len_cv double;     -- spread of output lengths (cv)
alter table workload add column if not exists max_output_len double;    -- the longest output allowed
alter table workload add column if not exists samples double;           -- MLPerf dataset size
alter table efficiency_default drop column if exists link_eff;          -- links now in `link`

-- How collectives use each kind of link (scale-up kinds and the scale-out "network").
create table if not exists link (
    link_kind varchar,
    collective_eff double,     -- NCCL bus bandwidth / per-direction line rate
    hop_latency_s double,      -- per ring step of a small all-reduce
    source varchar
);

-- What a provider rents out per GPU: instance size, largest advertised cluster, interconnect.
create table if not exists provider_capacity (
    provider varchar,
    gpu_id varchar,
    instance_gpus double,
    max_gpus double,
    interconnect varchar,
    source varchar
);

alter table workload add column if not exists demand_tokens_per_s double;  -- serving job: output tokens/s to sustain
alter table workload add column if not exists purpose varchar;              -- job | benchmark

-- MLPerf Training: samples to reach the target per global batch (MLCommons RCP means).
create table if not exists convergence (
    workload_id varchar,
    global_batch_seqs double,
    samples_to_converge double,
    source varchar
);
