-- grain: one row per workload x global_batch
-- convergence_curve: for every global batch between a workload's smallest and largest MLPerf
-- reference point, the samples it takes to converge, interpolated log-log between the two
-- nearest points (RCPs grow sub-linearly with the batch: LoRA needs 3.5x the samples at 16x
-- the batch).
create or replace table convergence_curve as
with points as (
    select workload_id, global_batch_seqs as batch, samples_to_converge as samples from convergence
),
batches as (
    select p.workload_id, r.batch
    from (select workload_id, min(batch) as lo, max(batch) as hi from points group by all) p,
         range(cast(p.lo as bigint), cast(p.hi as bigint) + 1) r(batch)
),
bracketed as (
    select
        b.workload_id, b.batch,
        max(p.batch) filter (where p.batch <= b.batch) as lo_batch,
        arg_max(p.samples, p.batch) filter (where p.batch <= b.batch) as lo_samples,
        min(p.batch) filter (where p.batch >= b.batch) as hi_batch,
        arg_min(p.samples, p.batch) filter (where p.batch >= b.batch) as hi_samples
    from batches b join points p using (workload_id)
    group by all
)
select
    workload_id,
    batch as global_batch,
    case when hi_batch = lo_batch then lo_samples
         else exp(ln(lo_samples) + (ln(batch) - ln(lo_batch)) / (ln(hi_batch) - ln(lo_batch))
                                   * (ln(hi_samples) - ln(lo_samples))) end as samples_to_converge
from bracketed;
