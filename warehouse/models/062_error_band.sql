-- grain: one row per workload kind x level (0-8)
-- error_band: the error an estimate carries, from the points it rests on, per kind of workload
-- and level of calibration: a measured count, the repeat spread of its measurements; a
-- calibrated level, that level's held-out error; no calibration, the uncalibrated model's error
-- on every measured point. Fewer than min_backtest_points (5) points is no evidence: the band
-- is left empty and the estimate reads "unvalidated".
create or replace table error_band as
with errors as (
    select kind, 1 as level, in_sample_ape as ape from backtest
    union all
    select b.kind, b.level, b.ape from backtest_level b
    join calibration_trust k on k.level = b.level and k.workload_id = b.workload_id and k.trusted
    union all
    select kind, 0, default_ape from backtest
),
bands as (
    select kind, level, quantile_cont(ape, 0.5) as p50, quantile_cont(ape, 0.9) as p90, count(*) as points
    from errors group by all
)
select
    k.kind, l.level,
    band_confidence(l.level) as confidence,
    band_earned(b.points, b.p50) as error_p50,
    band_earned(b.points, b.p90) as error_p90,
    coalesce(b.points, 0) as points,
    band_basis(b.points) as basis
from (select distinct kind from workload) k
cross join range(0, 9) l(level)
left join bands b on b.kind = k.kind and b.level = l.level;
