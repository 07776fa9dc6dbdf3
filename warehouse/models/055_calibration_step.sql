-- grain: one row per latest serving point under latency limits (source x source_ref x source_row)
-- calibration_step: for every latest serving result measured under latency limits (Server,
-- Interactive), the factor at which the calibrated serving choice reproduces it. A factor
-- slows every step, so under latency limits the batch shrinks with it and the rate falls
-- faster than the factor: the plain ratio (measured / modelled at the uncalibrated batch)
-- would publish the measured system well below its own measurement (Llama-2-70B Interactive
-- on 8 MI300X: 5,237 tokens/s against 8,646 measured). The measured level (1) calibrates with
-- this factor instead; the other levels keep the ratio, which the backtest judges.
--
-- The rate at f, f x best(f) over calibration_rates, only grows with f, and crosses the
-- measurement once: inside a step (the factor reproduces it) or at a jump (the nearer side of
-- it).
create or replace table calibration_step as
with steps as (
    -- the factors at which batches join the choice, with the best rate joining at each
    select source, source_ref, source_row, measured_per_gpu, min_factor, max(per_gpu_at_1) as joining_per_gpu
    from calibration_rates
    where min_factor < 'infinity'::double
    group by all
),
stepped as (
    -- the best rate per unit of factor from each step on (best_at_1) and before it
    select
        *,
        max(joining_per_gpu) over (partition by source, source_ref, source_row order by min_factor
                                   rows between unbounded preceding and current row) as best_at_1,
        max(joining_per_gpu) over (partition by source, source_ref, source_row order by min_factor
                                   rows between unbounded preceding and 1 preceding) as best_before_1,
        lead(min_factor) over (partition by source, source_ref, source_row order by min_factor) as next_min_factor
    from steps
)
-- the step where the rate f x best reaches the measurement: inside it at measured / best, or
-- where it jumps past the measurement as the step's batches join, just after or just before
-- they join (a hair off the step, so the limits hold under rounding), whichever rate is nearer
select
    source, source_ref, source_row,
    case when measured_per_gpu / best_at_1 >= min_factor then measured_per_gpu / best_at_1
         when best_before_1 is not null
              and measured_per_gpu - min_factor * best_before_1 < min_factor * best_at_1 - measured_per_gpu
         then min_factor * (1 - 1e-9)
         else min_factor * (1 + 1e-9) end as step_factor
from stepped
where (measured_per_gpu / best_at_1 >= min_factor
       and measured_per_gpu / best_at_1 < coalesce(next_min_factor, 'infinity'::double))
   or (measured_per_gpu / best_at_1 < min_factor
       and (best_before_1 is null or measured_per_gpu / best_before_1 >= min_factor));
