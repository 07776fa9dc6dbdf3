-- The backtest's held-out errors per value of one of its columns (`column`: the workload kind,
-- the GPU held out or the workload), with and without calibration.
select {column}, count(*) as points,
       count(loao_factor) as calibrated,
       quantile_cont(loao_ape, 0.5) as median_ape,
       quantile_cont(loao_ape, 0.9) as p90_ape,
       quantile_cont(default_ape, 0.5) as default_median_ape
from backtest group by all order by 1
