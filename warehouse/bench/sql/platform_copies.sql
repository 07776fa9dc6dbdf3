-- Copies 1 .. n - 1 of every platform, each a little dearer to buy and to power.
-- ?: the separator of synthetic ids, the copies n.
insert into platform by name
select p.* replace (
           p.platform_id || ?::varchar || k.copy as platform_id,
           p.name || ' (synthetic variant ' || k.copy || ')' as name,
           p.capex_usd_per_node * (1 + 0.02 * (k.copy % 5)) as capex_usd_per_node,
           p.node_power_kw * (1 + 0.01 * (k.copy % 3)) as node_power_kw)
from platform p cross join range(1, ?) k(copy)
