-- `gpucalc list workloads`: every workload of the catalog (yours included), what kind of job it
-- is, on which model, and what bounds it: a serving job's scenario and latency limits, a
-- training job's tokens and epochs.
select workload_id, name, kind, purpose, model_id, consumer_model_id, dtype, scenario, ttft_ms, tpot_ms,
       input_len, output_len, demand_tokens_per_s, total_tokens, epochs, token_unit
from workload
order by workload_id
