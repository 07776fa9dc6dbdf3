-- grain: one row per kind (serving with its scenario) x estimate class that backtest_family predicted
-- family_trust: whether other families' results help an estimate of a model family nobody
-- measured in this kind of workload: over at least min_backtest_points points left out a family
-- at a time (backtest_family), their median error beats the uncalibrated model's on the same
-- points. Where it does not, such an estimate keeps the documented efficiencies rather than a
-- factor learnt from other models (calibration_choice): more measured results of other
-- workloads must not make a new model's estimate worse.
create or replace table family_trust as
select
    scenario_kind as kind,
    class,
    count(*) as points,
    quantile_cont(ape, 0.5) as median_ape,
    quantile_cont(default_ape, 0.5) as median_default_ape,
    count(*) >= assume('min_backtest_points') and quantile_cont(ape, 0.5) < quantile_cont(default_ape, 0.5) as trusted
from backtest_family
group by all;
