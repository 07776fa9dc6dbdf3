-- grain: one row per run_date x latest calibration point (source x source_ref x source_row)
-- The night's leave-one-accelerator-out backtest, point by point (061_backtest.sql).
create table if not exists night_backtest (
    run_date date,
    run_id varchar,
    workload_id varchar,
    kind varchar,
    gpu_id varchar,
    platform_id varchar,
    gpu_count integer,
    submitter varchar,
    system varchar,
    round varchar,
    measured_at date,
    measured_per_gpu double,
    model_per_gpu double,
    loao_factor double,           -- null: no other accelerator to learn from
    loao_predicted_per_gpu double,
    loao_ape double,
    default_ape double,
    source varchar,
    source_ref varchar,
    source_row bigint
);

delete from night_backtest where night_snapshot_wanted() and run_date = night_run_date();
insert into night_backtest by name
select
    night_run_date() as run_date,
    night_run_id() as run_id,
    workload_id, kind, gpu_id, platform_id, gpu_count, submitter, system, round, measured_at,
    measured_per_gpu, model_per_gpu, loao_factor, loao_predicted_per_gpu, loao_ape, default_ape,
    source, source_ref, source_row
from backtest
where night_snapshot_wanted();
