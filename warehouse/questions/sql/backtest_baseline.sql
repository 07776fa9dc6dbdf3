-- The model against the naive baseline, and the stated bands' coverage, per value of one of
-- backtest_baseline's columns (`grouped`: the class, the workload kind by scenario, or a constant
-- for every point), in the order of `ranked`. The model's errors are over every point and over
-- the points the baseline could predict (the fair comparison), the baseline's over its own.
select
    {grouped} as name,
    count(*) as points,
    quantile_cont(loao_ape, 0.5) as model_median,
    quantile_cont(loao_ape, 0.9) as model_p90,
    count(baseline_ape) as baseline_points,
    quantile_cont(loao_ape, 0.5) filter (where baseline_ape is not null) as model_median_on_baseline,
    quantile_cont(loao_ape, 0.9) filter (where baseline_ape is not null) as model_p90_on_baseline,
    quantile_cont(baseline_ape, 0.5) as baseline_median,
    quantile_cont(baseline_ape, 0.9) as baseline_p90,
    count(*) - count(baseline_ape) as no_baseline,
    string_agg(distinct scaled_by, ', ' order by scaled_by) filter (where baseline_ape is not null) as scaled_by,
    count(within_p50) as p50_band_points,
    count(*) filter (where within_p50) as within_p50,
    count(within_p90) as p90_band_points,
    count(*) filter (where within_p90) as within_p90,
    count(*) filter (where within_p50) / nullif(count(within_p50), 0) as p50_coverage,
    count(*) filter (where within_p90) / nullif(count(within_p90), 0) as p90_coverage,
    -- error_band earns or refuses p50 and p90 together: the points it gave none
    count(*) - count(within_p90) as no_band
from backtest_baseline
group by {grouped}
order by min({ranked}), 1
