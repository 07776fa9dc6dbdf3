-- grain: one row per level x kind (workload_id null), and one per level x workload of the catalog
-- calibration_trust: whether a level of calibration helps. It does when, over at least
-- min_backtest_points (5) held-out points, its median error beats the uncalibrated model's on
-- the same points; otherwise estimates skip it (a factor learnt from one accelerator made LoRA
-- and MI300X worse). Judged per scenario of serving (Offline, Server, Interactive apart): a
-- factor from two MI300X Interactive points, which no other accelerator can check, would
-- otherwise ride on the serving backtest and halve every Interactive estimate. `kind` is the
-- workload kind, with the scenario for serving.
-- A same-GPU-family level (3, 5, 7) must also do no worse, on its own points, than the level that
-- learns the same from every other GPU (4, 6, 8): otherwise an estimate calibrated on its siblings (one
-- Hopper card from another) would be worse than one calibrated on all (docs/accuracy.md).
-- The levels that learn from the workload itself (2-4) are judged again on each workload's own
-- held-out points where it has enough: the model can be right on one workload of a kind and
-- off by a constant on another (Mixtral Offline against Llama-2-70B Offline), and the kind's
-- verdict would calibrate both or neither. Each workload's rows carry its own verdict there,
-- else its kind's; estimates, the backtest and the bands read the workload's rows.
create or replace table calibration_trust as
with judged as (
    select level, scenario_kind as kind, null::varchar as workload_id, source, source_ref, source_row,
           ape, default_ape
    from backtest_level
    union all
    select level, scenario_kind, workload_id, source, source_ref, source_row, ape, default_ape
    from backtest_level
    where level between 2 and 4
),
broader as (
    -- per scope and same-family level, the median error over its points of the level that drops
    -- the family condition, on the points both predict
    select s.kind, s.workload_id, s.level, quantile_cont(s.ape, 0.5) as median_ape,
           quantile_cont(b.ape, 0.5) as broader_ape
    from judged s
    join judged b
      on b.source = s.source and b.source_ref = s.source_ref and b.source_row is not distinct from s.source_row
     and b.level = s.level + 1 and b.workload_id is not distinct from s.workload_id
    where s.level in (3, 5, 7)
    group by all
),
scored as (
    select
        l.level, l.kind, l.workload_id,
        count(*) as points,
        quantile_cont(l.ape, 0.5) as median_ape,
        quantile_cont(l.default_ape, 0.5) as median_default_ape,
        count(*) >= assume('min_backtest_points') and quantile_cont(l.ape, 0.5) < quantile_cont(l.default_ape, 0.5)
            and coalesce(any_value(w.median_ape) <= any_value(w.broader_ape), true) as trusted
    from judged l
    left join broader w on w.kind = l.kind and w.level = l.level and w.workload_id is not distinct from l.workload_id
    group by all
),
workloads as (
    select workload_id, scenario_kind(kind, scenario) as kind from workload
)
select level, kind, workload_id, points, median_ape, median_default_ape, trusted, 'kind' as judged_on
from scored
where workload_id is null
union all
select
    k.level, k.kind, w.workload_id,
    coalesce(own.points, k.points) as points,
    coalesce(own.median_ape, k.median_ape) as median_ape,
    coalesce(own.median_default_ape, k.median_default_ape) as median_default_ape,
    coalesce(own.trusted, k.trusted) as trusted,
    case when own.level is null then 'kind' else 'workload' end as judged_on
from workloads w
join scored k on k.kind = w.kind and k.workload_id is null
left join scored own
  on own.workload_id = w.workload_id and own.level = k.level and own.points >= assume('min_backtest_points');
