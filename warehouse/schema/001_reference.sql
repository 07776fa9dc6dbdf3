-- Reference layer: the bundled catalog, replaced as a whole on every run.
-- No PRIMARY KEY / UNIQUE / sequences: the warehouse must move to DuckLake unchanged;
-- uniqueness is a validation rule instead (warehouse/validation.py).

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

alter table workload add column if not exists spec_draft_len double;  -- speculative decoding: k drafted

create table if not exists gpu_alias (
    alias varchar,             -- a spelling some source uses; matched on lower(trim(alias))
    gpu_id varchar,
    note varchar
);

create table if not exists efficiency_default (
    family varchar,            -- accelerator family (gpu.family)
    gemm_eff_bf16 double,      -- large-GEMM throughput / dense peak
    gemm_eff_fp8 double,
    gemm_eff_fp4 double,
    mem_eff double,            -- achieved / spec memory bandwidth
    link_eff double,           -- NCCL bus bandwidth / link peak
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
