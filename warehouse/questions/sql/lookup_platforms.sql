-- `gpucalc list platforms`: every platform, the accelerator it is built from, the GPUs in one
-- system and in one scale-up domain, and how it is sold: a server, a rack (the system is the
-- rack: GB200 NVL72), a workstation, or not at all (cloud-only TPU slices, no capex).
select platform_id, name, gpu_id, gpus_per_node, scaleup_domain_gpus, scaleup_kind, max_nodes,
       capex_usd_per_node, node_power_kw,
       case when coalesce(capex_usd_per_node, 0) <= 0 then 'not sold'
            when name ilike '%rack%' then 'rack'
            when name ilike 'workstation%' then 'workstation'
            else 'server' end as sold_by
from platform
order by platform_id
