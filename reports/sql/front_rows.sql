-- Per job, its decision rows as the front page's tables show them, each with what its option
-- knows (the GPUs of one rented unit, the calibration level, the held-out points of its error
-- band), and its platform's shape. Params: run_date x2. Part platforms: night_platform, or
-- an empty stand-in on a warehouse from before it was kept; part points: min(error_points), or
-- null where night_option predates it.
with opt as (
    select workload_id, platform_id, n_gpus, pricing, provider, region, instance_type,
           min(gpus_per_instance) as gpus_per_instance, min(calibration_level) as calibration_level,
           {points} as error_points
    from night_option where run_date = ?
    group by all
)
select d.* exclude (run_date, run_id), w.kind, o.gpus_per_instance,
       -- the band of the option's class (night_topology.error_points); a night kept before it, its kind's
       coalesce(o.error_points, b.points) as error_points,
       p.name as platform_name, p.gpus_per_node, p.scaleup_domain_gpus
from night_decision d
join night_workload w on w.run_date = d.run_date and w.workload_id = d.workload_id
left join opt o
  on o.workload_id = d.workload_id and o.platform_id = d.platform_id and o.n_gpus = d.n_gpus
 and o.pricing = d.pricing and o.provider = d.provider and o.region is not distinct from d.region
 and o.instance_type is not distinct from d.instance_type
left join night_error_band b on b.run_date = d.run_date and b.kind = w.kind and b.level = o.calibration_level
left join {platforms} p on p.run_date = d.run_date and p.platform_id = d.platform_id
where d.run_date = ?
order by d.workload_id, d.choice, d.pick, d.platform_id, d.n_gpus, d.provider
