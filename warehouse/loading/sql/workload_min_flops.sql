-- Per workload: the fewest FLOPs one unit can cost, the job's units, its scenario. No params.
select w.workload_id,
       case when w.kind = 'role_pipeline' then w.producer_gflop_per_token * 1e9
            when w.kind = 'serving' then 2.0 * m.params_active_b * 1e9
            when w.kind = 'finetune_lora' then 4.0 * m.params_active_b * 1e9
            else 6.0 * m.params_active_b * 1e9 end as min_flops_per_unit,
       w.total_tokens as job_units,
       coalesce(w.scenario, 'training') as workload_scenario
from workload w join model m using (model_id)
