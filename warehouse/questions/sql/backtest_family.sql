-- `gpucalc backtest`, leave one model family out: per kind (serving by scenario) and estimate
-- class, the held-out error of a family nobody measured, calibrated on the other families'
-- results and uncalibrated, and whether estimates of such a family use those factors (family_trust).
select
    b.scenario_kind as kind,
    b.class,
    count(*) as points,
    quantile_cont(b.ape, 0.5) as median_ape,
    quantile_cont(b.ape, 0.9) as p90_ape,
    quantile_cont(b.default_ape, 0.5) as median_default_ape,
    quantile_cont(b.default_ape, 0.9) as p90_default_ape,
    any_value(f.trusted) as used
from backtest_family b
left join family_trust f on f.kind = b.scenario_kind and f.class = b.class
group by all
order by 1, 2
