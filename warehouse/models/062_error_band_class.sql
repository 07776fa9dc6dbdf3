-- grain: one row per workload kind x estimate class (estimate_class) x level (0-8)
-- error_band_class: the band an estimate states, learnt from the held-out points of its own
-- class (the outside check's classes: training, role pipelines, MoE serving, PCIe / NVL /
-- workstation cards, Interactive, Offline / Server on the rest): the errors of one class say
-- nothing of another's, so a MoE estimate no MoE result checked earns no band from dense ones.
-- The same errors as error_band, per class: at a measured level, the repeat spread of its
-- measurements; at a calibrated level, that level's held-out error; uncalibrated, the model's
-- error on every measured point. Fewer than min_backtest_points points: no band, "unvalidated".
-- error_band (per kind alone) still weighs deployments in the serving choice
-- (063_serving_factor_calibrated).
create or replace table error_band_class as
with errors as (
    select kind, class, 1 as level, in_sample_ape as ape from backtest
    union all
    select c.kind, c.class, l.level, l.ape
    from backtest_level l
    join backtest c on c.source = l.source and c.source_ref = l.source_ref
                  and c.source_row is not distinct from l.source_row
    join calibration_trust k on k.level = l.level and k.workload_id = l.workload_id and k.trusted
    union all
    select kind, class, 0, default_ape from backtest
),
bands as (
    select kind, class, level, quantile_cont(ape, 0.5) as p50, quantile_cont(ape, 0.9) as p90, count(*) as points
    from errors group by all
),
classes as (
    -- every class an estimate of the catalog can fall in, earned or not
    select distinct w.kind, estimate_class(w.kind, m.experts, g.form_factor, w.scenario) as class
    from workload w
    left join model m on m.model_id = w.model_id
    cross join gpu g
)
select
    k.kind, k.class, l.level,
    band_confidence(l.level) as confidence,
    band_earned(b.points, b.p50) as error_p50,
    band_earned(b.points, b.p90) as error_p90,
    coalesce(b.points, 0) as points,
    band_basis(b.points) || ' of ' || k.class as basis
from classes k
cross join range(0, 9) l(level)
left join bands b on b.kind = k.kind and b.class = k.class and b.level = l.level;
