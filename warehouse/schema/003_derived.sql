-- Derived layer: rebuilt by the models on every run (warehouse/models/*.sql) and stamped
-- with the run. Only the tables that keep history across days are declared here; the
-- per-run model tables are created by the models themselves.

create table if not exists estimate_daily (
    run_id varchar,
    run_date date,
    workload_id varchar,
    platform_id varchar,
    pricing varchar,
    n_gpus integer,
    layout varchar,
    bottleneck varchar,
    tokens_per_s double,
    time_to_finish_h double,
    usd_total double,
    usd_per_mtok double,
    provider varchar,
    region varchar,
    instance_type varchar,
    confidence varchar
);
