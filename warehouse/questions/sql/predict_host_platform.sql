-- A GPU with no platform gets a plain host of as many GPUs as its cases put in one node, so it
-- can still be modelled. `wanted`: the cases, registered by the caller; ?: the network
-- bandwidth per GPU the host is given.
insert into platform by name
select 'host-' || g.gpu_id || '-' || w.per_node as platform_id,
       'generic host: ' || w.per_node || 'x ' || g.name as name,
       g.gpu_id, w.per_node as gpus_per_node,
       w.per_node as scaleup_domain_gpus,
       case when coalesce(g.scaleup_gbps_bidir, 0) > 0 then 'gpu-link' else 'pcie-host' end
           as scaleup_kind,
       case when coalesce(g.scaleup_gbps_bidir, 0) > 0 then g.scaleup_gbps_bidir
            else g.host_link_gbps_bidir end as scaleup_gbps_bidir,
       g.host_link_gbps_bidir, ? as network_gbps_per_gpu,
       g.tdp_w * w.per_node / 1000.0 * 1.4 as node_power_kw,
       max(w.nodes) over (partition by g.gpu_id) as max_nodes,
       'synthesised by gpucalc predict from the gpu row' as source
from (select gpu_id, max(gpu_count // greatest(nodes, 1)) as per_node, max(nodes) as nodes
      from wanted group by gpu_id) w
join gpu g using (gpu_id)
where not exists (select 1 from platform p where p.gpu_id = w.gpu_id)
