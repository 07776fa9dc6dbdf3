-- grain: one row per level x kind (the workload kind; serving with its scenario)
-- calibration_trust: whether a level of calibration helps a kind of workload. It does when,
-- over at least min_backtest_points (5) held-out points, its median error beats the
-- uncalibrated model's on the same points; otherwise estimates skip it (a factor learnt from
-- one accelerator made LoRA and MI300X worse). Judged per scenario of serving (Offline,
-- Server, Interactive apart): a factor from two MI300X Interactive points, which no other
-- accelerator can check, would otherwise ride on the serving backtest and halve every
-- Interactive estimate. `kind` is the workload kind, with the scenario for serving.
-- A same-GPU-family level (3, 5, 7) must also do no worse, on its own points, than the level that
-- learns the same from every other GPU (4, 6, 8): otherwise an estimate calibrated on its siblings (one
-- Hopper card from another) would be worse than one calibrated on all (docs/accuracy.md).
create or replace table calibration_trust as
with broader as (
    -- per kind and same-family level, the median error over its points of the level that drops
    -- the family condition, on the points both predict
    select s.scenario_kind, s.level, quantile_cont(s.ape, 0.5) as median_ape, quantile_cont(b.ape, 0.5) as broader_ape
    from backtest_level s
    join backtest_level b
      on b.source = s.source and b.source_ref = s.source_ref and b.source_row is not distinct from s.source_row
     and b.level = s.level + 1
    where s.level in (3, 5, 7)
    group by all
)
select
    l.level, l.scenario_kind as kind,
    count(*) as points,
    quantile_cont(l.ape, 0.5) as median_ape,
    quantile_cont(l.default_ape, 0.5) as median_default_ape,
    count(*) >= assume('min_backtest_points') and quantile_cont(l.ape, 0.5) < quantile_cont(l.default_ape, 0.5)
        and coalesce(any_value(w.median_ape) <= any_value(w.broader_ape), true) as trusted
from backtest_level l
left join broader w on w.scenario_kind = l.scenario_kind and w.level = l.level
group by all;
