-- grain: one row per level x kind (the workload kind; serving with its scenario)
-- calibration_trust: whether a level of calibration helps a kind of workload. It does when,
-- over at least min_backtest_points (5) held-out points, its median error beats the
-- uncalibrated model's on the same points; otherwise estimates skip it (a factor learnt from
-- one accelerator made LoRA and MI300X worse). Judged per scenario of serving (Offline,
-- Server, Interactive apart): a factor from two MI300X Interactive points, which no other
-- accelerator can check, would otherwise ride on the serving backtest and halve every
-- Interactive estimate. `kind` is the workload kind, with the scenario for serving.
create or replace table calibration_trust as
select
    level, scenario_kind as kind,
    count(*) as points,
    quantile_cont(ape, 0.5) as median_ape,
    quantile_cont(default_ape, 0.5) as median_default_ape,
    count(*) >= assume('min_backtest_points') and quantile_cont(ape, 0.5) < quantile_cont(default_ape, 0.5) as trusted
from backtest_level
group by all;
