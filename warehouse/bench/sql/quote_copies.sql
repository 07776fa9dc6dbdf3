-- Other providers for the same instances, a few percent dearer or cheaper: every planned copy
-- after the first of each quote (`same_quote`: the two quote keys are equal).
-- ?: the separator of synthetic ids.
insert into price_quote by name
select q.* replace (
           q.provider || ?::varchar || b.copy as provider,
           round(q.usd_per_instance_hour * (0.95 + 0.01 * ((b.copy * 7) % 11)), 4)
               as usd_per_instance_hour,
           round(q.usd_per_instance_hour * (0.95 + 0.01 * ((b.copy * 7) % 11)), 4)
               / q.gpus_per_instance as usd_per_gpu_hour)
from price_quote q
join bench_quote_plan b
  on b.copy > 0 and {same_quote}
