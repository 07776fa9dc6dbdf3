-- `gpucalc serve --sweep`: each sweep point's chosen fleet per platform and price basis, the
-- platform_choice row a plain `serve --tpot-ms` would print; the rate per GPU is the modelled
-- deployment's, as `--json` states it (fleet_rows.fleet_json).
-- $workloads: the sweep's workload ids; $platforms, $bases: the platforms and price bases asked for.
select workload_id, platform_id, pricing, usd_per_mtok, tokens_per_s / n_gpus as tokens_per_s_per_gpu,
       coalesce(fleet_gpus, n_gpus) as fleet_gpus, layout, provider, instance_type, usd_per_gpu_hour
from platform_choice
where list_contains($workloads, workload_id) and list_contains($platforms, platform_id)
  and list_contains($bases, pricing)
order by workload_id, platform_id, pricing
