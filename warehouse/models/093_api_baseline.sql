-- grain: one row per serving workload x API provider (api_price row of its model)
-- The managed-API baseline for every serving workload: what a provider charges per million
-- OUTPUT tokens once the workload's input tokens are paid for too, next to tonight's cheapest
-- self-hosted or rented option for the same workload.
create or replace view api_baseline as
with self_hosted as (
    select workload_id, min(usd_per_mtok) as best_usd_per_mtok
    from estimate_best where kind = 'serving' group by workload_id
)
select
    w.workload_id, a.provider, a.usd_per_mtok_input, a.usd_per_mtok_output,
    a.usd_per_mtok_output + a.usd_per_mtok_input * w.input_len / w.output_len as api_usd_per_mtok_output,
    s.best_usd_per_mtok as self_hosted_usd_per_mtok,
    a.observed_at, a.source, a.note
from workload w
join api_price a using (model_id)
left join self_hosted s using (workload_id)
where w.kind = 'serving';
