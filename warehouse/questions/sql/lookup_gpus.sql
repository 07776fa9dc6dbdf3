-- `gpucalc list gpus`: every accelerator of the catalog, its memory, its dense peaks (no 2:4
-- sparsity; null where the hardware lacks the format) and the platforms built from it.
select g.gpu_id, g.vendor, g.name, g.memory_gb, g.memory_type, g.mem_bw_tbps, g.bf16_tflops, g.fp8_tflops,
       g.fp4_tflops, g.launch_year,
       coalesce(string_agg(p.platform_id, ', ' order by p.platform_id), '') as platforms
from gpu g
left join platform p on p.gpu_id = g.gpu_id
group by all
order by g.vendor, g.gpu_id
