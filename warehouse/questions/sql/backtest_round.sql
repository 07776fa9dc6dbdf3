-- `gpucalc backtest`, leave the latest round out: per estimate class and pair of rounds, each
-- workload x GPU's latest result predicted from the round before it on the same accelerator,
-- beside the uncalibrated model on the same points.
select
    class,
    from_round || ' -> ' || round as rounds,
    count(*) as points,
    quantile_cont(ape, 0.5) as median_ape,
    quantile_cont(ape, 0.9) as p90_ape,
    quantile_cont(default_ape, 0.5) as median_default_ape,
    quantile_cont(default_ape, 0.9) as p90_default_ape
from backtest_round
group by all
order by 1, 2
