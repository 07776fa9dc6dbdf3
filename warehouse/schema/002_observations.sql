-- Observation layer: append-only facts from outside. A reload of the same source and day
-- deletes that window and inserts it again, so loads are idempotent.

create table if not exists raw_payload (
    source varchar,
    run_date date,
    name varchar,
    path varchar,              -- where the bytes are kept, relative to the data dir
    url varchar,
    sha256 varchar,
    bytes bigint,
    fetched_at timestamp,
    run_id varchar
);

create table if not exists price_quote (
    provider varchar,
    region varchar,
    zone varchar,
    instance_type varchar,
    gpu varchar,               -- canonical gpu_id (resolved through gpu_alias)
    gpu_name varchar,          -- as the source spelled it
    gpus_per_instance double,
    usd_per_instance_hour double,
    usd_per_gpu_hour double,   -- derived: usd_per_instance_hour / gpus_per_instance
    pricing varchar,           -- on_demand | spot | reserved_1y | reserved_3y | owned
    currency varchar,
    observed_at date,
    source varchar,
    source_ref varchar,
    source_row bigint,
    run_id varchar,
    extracted_at timestamp
);

create table if not exists benchmark_result (
    suite varchar,
    round varchar,
    benchmark varchar,
    workload_id varchar,
    model varchar,
    scenario varchar,
    submitter varchar,
    system varchar,
    gpu varchar,               -- canonical gpu_id
    gpu_name varchar,          -- as the source spelled it
    gpu_count integer,
    nodes integer,
    role_split varchar,
    metric varchar,            -- tokens_per_s | time_to_train_min
    value double,
    unit varchar,
    per_gpu_value double,
    precision varchar,
    software varchar,
    global_batch_size double,
    seq_len double,
    median_step_s double,
    measured_at date,
    source varchar,
    source_ref varchar,
    source_row bigint,
    run_id varchar,
    extracted_at timestamp
);

create table if not exists rejected_row (
    run_id varchar,
    run_date date,
    source varchar,
    target_table varchar,      -- the table the row was meant for
    scope varchar,             -- the part of the source the load covered (providers, files)
    source_row bigint,         -- 1-based position in the payload (null for a whole payload)
    rule varchar,              -- machine name of the rule it broke
    detail varchar,            -- one sentence naming the row, the value and the rule
    row_json varchar,          -- the row as received
    rejected_at timestamp
);

create table if not exists run_log (
    run_id varchar,
    run_date date,
    mode varchar,              -- offline | online | ingest | replay
    started_at timestamp,
    finished_at timestamp,
    status varchar,            -- running | success | partial | failed
    price_rows bigint,
    benchmark_rows bigint,
    rejected_rows bigint,
    estimate_rows bigint,
    sources_ok varchar,
    sources_failed varchar,
    duration_s double,
    message varchar
);

create table if not exists source_status (
    run_id varchar,
    run_date date,
    source varchar,
    status varchar,            -- ok | failed | skipped
    rows_loaded bigint,
    rows_rejected bigint,
    message varchar,
    checked_at timestamp
);

-- What a payload says about the GPU besides its name, and what kind of figure a price is
-- (sources/kit/contracts.py). Added after the first release: existing warehouses gain them.
alter table price_quote add column if not exists gpu_memory_gb double;
alter table price_quote add column if not exists price_statistic varchar;  -- list | median | lowest | auction_floor
alter table price_quote add column if not exists underlying_provider varchar;
alter table benchmark_result add column if not exists gpu_memory_gb double;

-- The kept payload every row came from ("<source>/<day>/<name>", as under data/raw/; the
-- bundled files are "bundled/<file>"). A load replaces exactly its payloads' rows and
-- rejects. Rows loaded before this column existed have it null; warehouse/loading/load.py treats
-- them as belonging to their source and the day of the run that loaded them.
alter table price_quote add column if not exists payload varchar;
alter table benchmark_result add column if not exists payload varchar;
alter table rejected_row add column if not exists payload varchar;
-- The bundled files' rows from before payload ids: give them theirs, so the next bundled
-- load replaces them instead of loading beside them.
update price_quote set payload = 'bundled/price_snapshot.csv' where payload is null and source = 'bundled_snapshot';
update benchmark_result set payload = 'bundled/benchmark_results.csv'
where payload is null and source in ('bundled_mlperf', 'bundled_user_run');

-- The baseline (catalog with your overlays, bundled benchmarks) as last loaded, by digest:
-- an ingest or replay whose baseline did not change skips re-validating it (warehouse/loading/baseline.py).
create table if not exists baseline_load (
    digest varchar,
    run_id varchar,
    loaded_at timestamp
);
