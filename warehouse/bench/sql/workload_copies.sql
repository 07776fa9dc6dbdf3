-- Copies 1 .. n - 1 of every workload, each a little larger.
-- ?: the separator of synthetic ids, the copies n.
insert into workload by name
select w.* replace (
           w.workload_id || ?::varchar || k.copy as workload_id,
           w.name || ' (synthetic copy ' || k.copy || ')' as name,
           w.total_tokens * (1 + 0.1 * k.copy) as total_tokens)
from workload w cross join range(1, ?) k(copy)
