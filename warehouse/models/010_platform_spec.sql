-- grain: one row per platform
-- platform_spec: every platform with its GPU's peaks (held under the board's power cap), the
-- family's default efficiencies, and its links per direction with how collectives use them.
create or replace table platform_spec as
select
    p.*,
    g.family,
    g.memory_usable_gb,
    g.mem_bw_tbps,
    -- a card that cannot hold its boost clock under its power cap reaches less of every peak
    coalesce(g.sustained_clock_ratio, 1.0) as clock_ratio,
    g.fp4_tflops * coalesce(g.sustained_clock_ratio, 1.0) as fp4_tflops,
    g.fp8_tflops * coalesce(g.sustained_clock_ratio, 1.0) as fp8_tflops,
    g.bf16_tflops * coalesce(g.sustained_clock_ratio, 1.0) as bf16_tflops,
    g.sfu_exp_per_s_t * 1e12 * coalesce(g.sustained_clock_ratio, 1.0) as exp_per_s,
    g.tdp_w,
    coalesce(e.gemm_eff_bf16, 0.70) as gemm_eff_bf16,
    coalesce(e.gemm_eff_fp8, e.gemm_eff_bf16, 0.70) as gemm_eff_fp8,
    coalesce(e.gemm_eff_fp4, e.gemm_eff_fp8, e.gemm_eff_bf16, 0.70) as gemm_eff_fp4,
    coalesce(e.serve_eff_bf16, 0.60) as serve_eff_bf16,
    coalesce(e.serve_eff_fp8, e.serve_eff_bf16, 0.60) as serve_eff_fp8,
    coalesce(e.serve_eff_fp4, e.serve_eff_fp8, e.serve_eff_bf16, 0.60) as serve_eff_fp4,
    coalesce(e.mem_eff, 0.80) as mem_eff,
    -- links per direction in GB/s (specs are bidirectional totals; NICs are Gbit/s one way),
    -- each with the share of it collectives reach and the latency of one ring step
    p.scaleup_gbps_bidir / 2.0 as scaleup_gbs,
    p.host_link_gbps_bidir / 2.0 as host_gbs,
    coalesce(p.network_gbps_per_gpu, 0) / 8.0 as network_gbs,
    coalesce(lk.collective_eff, 0.75) as scaleup_eff,
    coalesce(lk.hop_latency_s, 0.0000024) as scaleup_hop_s,
    coalesce(lh.collective_eff, 0.44) as host_eff,
    coalesce(lh.hop_latency_s, 0.0000035) as host_hop_s,
    coalesce(lc.collective_eff, 0.58) as host_copy_eff,
    coalesce(ln.collective_eff, 0.9) as network_eff,
    coalesce(ln.hop_latency_s, 0.00002) as network_hop_s
from platform p
join gpu g using (gpu_id)
left join efficiency_default e on e.family = g.family
left join link lk on lk.link_kind = p.scaleup_kind
left join link lh on lh.link_kind = 'pcie-host'
left join link lc on lc.link_kind = 'pcie-host-copy'
left join link ln on ln.link_kind = 'network';
