-- grain: one row per workload x dtype
-- The precisions each workload is modelled in: its own dtype (what estimates use), every
-- precision a benchmark of it declares (so calibration compares like with like), and any
-- precision asked for by `gpucalc predict` (model_request).
create or replace table precision_option as
select workload_id, dtype from workload
union
select b.workload_id, normalized_precision(b.precision, w.dtype)
from benchmark_result b join workload w using (workload_id)
union
select r.workload_id,
       -- 'exact:fp8' asks for that format as is (whatif --dtype), not as a declared one
       case when r.precision like 'exact:%' then substr(r.precision, 7)
            else normalized_precision(r.precision, w.dtype) end
from model_request r join workload w using (workload_id);
