"""Hand-checked facts in the bundled reference catalog (sources/data/*.csv).

Every number asserted here was checked by hand against the vendor datasheets and the
project reference notes (see sources/data/CATALOG.md). The dense-vs-sparse assertions
guard the traps listed there: NVIDIA prints sparse Tensor figures, AMD/Intel/Google do not,
and Blackwell Ultra FP4 is not sparse/2.
"""

from __future__ import annotations

from importlib import resources

import polars as pl
import pytest

from sources.bundled.catalog import load_table

REQUIRED_GPUS = {
    "A100-SXM-80GB",
    "H100-SXM",
    "H100-PCIe",
    "H100-NVL",
    "H200-SXM",
    "H200-NVL",
    "B200",
    "B300",
    "GB200",
    "GB300",
    "RTX-PRO-6000-WS",
    "RTX-PRO-6000-SE",
    "RTX-5090",
    "RTX-4090",
    "L40S",
    "L4",
    "MI300X",
    "MI325X",
    "MI355X",
    "Gaudi3",
    "TPU-v5e",
    "TPU-v5p",
    "TPU-v6e",
    "TPU7x",
}
REQUIRED_PLATFORMS = {
    "hgx-a100-8",
    "hgx-h100-8",
    "hgx-h200-8",
    "hgx-b200-8",
    "hgx-b300-8",
    "gb200-nvl72",
    "gb300-nvl72",
    "mi300x-8",
    "mi325x-8",
    "mi355x-8",
    "ws-rtxpro6000-4",
    "srv-rtxpro6000-8",
    "l40s-8",
}
REQUIRED_MODELS = {
    "llama2-70b",
    "llama31-8b",
    "llama31-70b",
    "llama31-405b",
    "mixtral-8x7b",
    "deepseek-r1",
    "gpt3-175b",
    "qwen36-27b",
    "dflash-drafter-qwen36-27b",
    "qwen3-8b",
}
REQUIRED_WORKLOADS = {
    "dflash-qwen36-27b": "role_pipeline",
    "llama2-70b-offline": "serving",
    "llama2-70b-server": "serving",
    "llama2-70b-interactive": "serving",
    "llama31-8b-offline": "serving",
    "llama31-8b-server": "serving",
    "llama31-8b-interactive": "serving",
    "llama31-405b-offline": "serving",
    "llama31-405b-server": "serving",
    "mixtral-8x7b-offline": "serving",
    "mixtral-8x7b-server": "serving",
    "deepseek-r1-offline": "serving",
    "deepseek-r1-server": "serving",
    "deepseek-r1-interactive": "serving",
    "llama2-70b-lora": "finetune_lora",
    "llama31-405b-pretrain": "pretrain",
    "llama31-8b-pretrain": "pretrain",
    "gpt3-175b-pretrain": "pretrain",
}


@pytest.fixture(scope="module")
def gpu() -> pl.DataFrame:
    return load_table("gpu")


@pytest.fixture(scope="module")
def platform() -> pl.DataFrame:
    return load_table("platform")


@pytest.fixture(scope="module")
def model() -> pl.DataFrame:
    return load_table("model")


@pytest.fixture(scope="module")
def workload() -> pl.DataFrame:
    return load_table("workload")


@pytest.fixture(scope="module")
def alias() -> pl.DataFrame:
    return load_table("gpu_alias")


def _row(frame: pl.DataFrame, key: str, value: str) -> dict:
    rows = frame.filter(pl.col(key) == value).to_dicts()
    assert len(rows) == 1, f"expected exactly one {key}={value}, got {len(rows)}"
    return rows[0]


def test_gpu_catalog_has_the_required_accelerators(gpu):
    assert gpu.height >= 24
    assert REQUIRED_GPUS <= set(gpu["gpu_id"])
    assert gpu["gpu_id"].n_unique() == gpu.height


@pytest.mark.parametrize(
    ("gpu_id", "column", "value"),
    [
        ("H100-SXM", "bf16_tflops", 989),  # datasheet 1,979 is with sparsity
        ("H100-SXM", "fp8_tflops", 1979),  # datasheet 3,958 is with sparsity
        ("B200", "fp4_tflops", 9000),  # 18 | 9 PF sparse | dense
        ("B200", "bf16_tflops", 2250),
        ("B300", "fp4_tflops", 13500),  # NOT 18/2 = 9000 (Blackwell Ultra dense FP4 boost)
        ("GB200", "bf16_tflops", 2500),
        ("MI300X", "bf16_tflops", 1307.4),  # AMD prints dense: do not halve
        ("MI355X", "fp8_tflops", 5033),  # '10 PF FP8' quotes are sparse-style
        ("RTX-PRO-6000-WS", "mem_bw_tbps", 1.792),
        ("RTX-PRO-6000-SE", "mem_bw_tbps", 1.597),  # Server Edition is slower than WS
    ],
)
def test_dense_peaks_and_bandwidth(gpu, gpu_id, column, value):
    assert _row(gpu, "gpu_id", gpu_id)[column] == pytest.approx(value)


@pytest.mark.parametrize(
    ("gpu_id", "physical", "usable"),
    [
        ("B200", 192, 180),
        ("GB200", 192, 186),
        ("B300", 288, 270),
        ("GB300", 288, 279),
    ],
)
def test_usable_memory_is_not_physical_memory(gpu, gpu_id, physical, usable):
    row = _row(gpu, "gpu_id", gpu_id)
    assert (row["memory_gb"], row["memory_usable_gb"]) == (physical, usable)


def test_usable_memory_never_exceeds_physical(gpu):
    assert gpu.filter(pl.col("memory_usable_gb") > pl.col("memory_gb")).is_empty()
    assert gpu.filter(pl.col("memory_usable_gb").is_null()).is_empty()


def test_missing_low_precision_formats_are_null_not_zero(gpu):
    a100 = _row(gpu, "gpu_id", "A100-SXM-80GB")
    assert a100["fp8_tflops"] is None and a100["fp4_tflops"] is None
    hopper = gpu.filter(pl.col("family") == "nvidia-hopper")
    assert hopper.height >= 5 and hopper["fp4_tflops"].is_null().all()
    assert gpu.filter(pl.col("bf16_tflops").is_null() | (pl.col("bf16_tflops") <= 0)).is_empty()


def test_low_precision_is_never_slower_than_bf16(gpu):
    bad = gpu.filter(
        (pl.col("fp8_tflops") < pl.col("bf16_tflops")) | (pl.col("fp4_tflops") < pl.col("fp8_tflops"))
    )
    assert bad.is_empty(), bad["gpu_id"].to_list()


def test_pcie_only_cards_have_no_scaleup_fabric(gpu):
    for gpu_id in ("RTX-PRO-6000-WS", "RTX-PRO-6000-SE", "RTX-5090", "RTX-4090", "L40S", "L4"):
        row = _row(gpu, "gpu_id", gpu_id)
        assert row["scaleup_gbps_bidir"] == 0, gpu_id
        assert row["host_link_gbps_bidir"] in (64, 128), gpu_id


def test_families_group_calibration(gpu):
    fam = dict(zip(gpu["gpu_id"], gpu["family"], strict=True))
    assert {fam[g] for g in ("B200", "B300", "GB200", "GB300")} == {"nvidia-blackwell"}
    assert {fam[g] for g in ("RTX-PRO-6000-WS", "RTX-PRO-6000-SE", "RTX-5090")} == {"nvidia-blackwell-rtx"}
    assert {fam[g] for g in ("MI300X", "MI325X")} == {"amd-cdna3"}
    assert fam["MI355X"] == "amd-cdna4"
    assert fam["A100-SXM-80GB"] == "nvidia-ampere"
    assert fam["Gaudi3"] == "intel-gaudi"


def test_every_gpu_row_is_sourced_and_dated(gpu):
    assert gpu.filter(pl.col("source").is_null() | (pl.col("source") == "")).is_empty()
    assert gpu["source_date"].is_not_null().all()
    assert set(gpu["confidence"]) <= {"datasheet", "secondary", "estimate"}


def test_platforms_reference_known_gpus(platform, gpu):
    assert REQUIRED_PLATFORMS <= set(platform["platform_id"])
    assert platform["platform_id"].n_unique() == platform.height
    assert set(platform["gpu_id"]) <= set(gpu["gpu_id"])
    assert platform.filter(pl.col("scaleup_domain_gpus") > pl.col("gpus_per_node")).is_empty()


def test_seed_workstation_is_pcie_only(platform):
    ws = _row(platform, "platform_id", "ws-rtxpro6000-4")
    assert ws["gpu_id"] == "RTX-PRO-6000-WS"
    assert (ws["gpus_per_node"], ws["scaleup_domain_gpus"], ws["max_nodes"]) == (4, 4, 1)
    assert ws["scaleup_kind"] == "pcie-host"
    assert ws["scaleup_gbps_bidir"] == ws["host_link_gbps_bidir"] == 128


def test_nvl72_racks_are_one_scaleup_domain(platform):
    for pid in ("gb200-nvl72", "gb300-nvl72"):
        row = _row(platform, "platform_id", pid)
        assert row["gpus_per_node"] == row["scaleup_domain_gpus"] == 72
        assert row["scaleup_kind"] == "nvlink-switch"


def test_models_match_modeling_reference(model):
    assert REQUIRED_MODELS <= set(model["model_id"])
    assert _row(model, "model_id", "llama2-70b")["kv_dim_per_layer"] == 2 * 8 * 128
    ds = _row(model, "model_id", "deepseek-r1")
    assert (ds["kv_dim_per_layer"], ds["experts"], ds["experts_active"]) == (576, 256, 8)
    qwen = _row(model, "model_id", "qwen36-27b")
    assert (qwen["layers"], qwen["attn_layers"], qwen["kv_dim_per_layer"]) == (64, 16, 2048)
    assert qwen["state_mb_per_seq"] == pytest.approx(151)
    mix = _row(model, "model_id", "mixtral-8x7b")
    assert (mix["experts"], mix["experts_active"]) == (8, 2)


def test_workloads_reference_known_models(workload, model):
    kinds = dict(zip(workload["workload_id"], workload["kind"], strict=True))
    for wid, kind in REQUIRED_WORKLOADS.items():
        assert kinds.get(wid) == kind, wid
    models = set(model["model_id"])
    assert set(workload["model_id"]) <= models
    assert set(workload["consumer_model_id"].drop_nulls()) <= models
    assert workload["total_tokens"].is_not_null().all()


def test_serving_latency_limits(workload):
    serving = workload.filter(pl.col("kind") == "serving")
    offline = serving.filter(pl.col("scenario") == "Offline")
    assert offline["ttft_ms"].is_null().all() and offline["tpot_ms"].is_null().all()
    online = serving.filter(pl.col("scenario") != "Offline")
    assert online["ttft_ms"].is_not_null().all() and online["tpot_ms"].is_not_null().all()
    limits = {r["workload_id"]: (r["ttft_ms"], r["tpot_ms"]) for r in online.to_dicts()}
    assert limits["llama2-70b-server"] == (2000, 200)
    assert limits["llama2-70b-interactive"] == (450, 40)
    assert limits["llama31-405b-server"] == (6000, 175)
    assert limits["deepseek-r1-interactive"] == (1500, 15)
    assert serving["input_len"].is_not_null().all() and serving["output_len"].is_not_null().all()


def test_serving_total_tokens_is_samples_times_mean_output(workload):
    row = _row(workload, "workload_id", "llama2-70b-offline")
    assert row["total_tokens"] == pytest.approx(24576 * row["output_len"])
    assert row["output_len"] == pytest.approx(294.45)  # MLPerf reference tokens_per_sample


def test_dflash_workload_is_the_seed_run(workload):
    row = _row(workload, "workload_id", "dflash-qwen36-27b")
    assert row["total_tokens"] == pytest.approx(14800 * 8.8 * 86400, rel=1e-3)
    assert row["epochs"] == 6
    assert row["consumer_model_id"] == "dflash-drafter-qwen36-27b"
    assert row["transfer_bytes_per_token"] == 5 * 5120 * 2
    assert row["token_unit"] == "target tokens"


def test_training_workloads_use_mlperf_shapes(workload):
    shapes = {r["workload_id"]: (r["seq_len"], r["global_batch_seqs"]) for r in workload.to_dicts()}
    assert shapes["llama2-70b-lora"] == (8192, 8)
    assert shapes["llama31-405b-pretrain"] == (8192, 1152)
    assert shapes["llama31-8b-pretrain"] == (8192, 64)
    assert shapes["gpt3-175b-pretrain"][0] == 2048
    # the job is the MLPerf reference convergence mean at GBS 1152: 322,560 sequences of 8192
    # tokens (rcps_llama31_405b.json, as convergence.csv)
    assert _row(workload, "workload_id", "llama31-405b-pretrain")["total_tokens"] == 322560 * 8192


def test_aliases_resolve_to_known_gpus_and_are_unique(alias, gpu):
    assert set(alias["gpu_id"]) <= set(gpu["gpu_id"])
    keys = alias["alias"].str.strip_chars().str.to_lowercase()
    assert keys.n_unique() == alias.height, keys.filter(keys.is_duplicated()).to_list()
    assert set(gpu["gpu_id"].str.to_lowercase()) <= set(keys)


@pytest.mark.parametrize(
    ("spelling", "gpu_id"),
    [
        ("H100", "H100-SXM"),  # clouds' 8-GPU H100 instances are SXM
        ("h100", "H100-SXM"),
        (" H100 SXM5 80GB ", "H100-SXM"),
        ("NVIDIA H100-SXM-80GB", "H100-SXM"),  # MLPerf accelerator_name
        ("AMD Instinct MI300X-NPS1-SPX-192GB-750W", "MI300X"),
        ("A100-80GB", "A100-SXM-80GB"),  # SkyPilot AcceleratorName
        ("A100-40GB", "A100-SXM-40GB"),
        ("A100 SXM4 40GB", "A100-SXM-40GB"),
        ("RTX-PRO-6000-Blackwell", "RTX-PRO-6000-SE"),
        ("RTXPRO6000", "RTX-PRO-6000-SE"),
        ("RTX PRO 6000 Blackwell Workstation Edition", "RTX-PRO-6000-WS"),
        ("H200-NVL", "H200-NVL"),
        ("GB200", "GB200"),
        ("MI355X", "MI355X"),
        ("costh100", "H100-SXM"),  # cloud-gpus.com key
        ("V100-32GB", "V100-32GB"),
    ],
)
def test_alias_resolution(alias, spelling, gpu_id):
    lookup = dict(zip(alias["alias"].str.strip_chars().str.to_lowercase(), alias["gpu_id"], strict=True))
    assert lookup[spelling.strip().lower()] == gpu_id


@pytest.mark.parametrize("spelling", ["RTX6000", "costrtx6000", "A100", "A100 SXM4", "NVIDIA GB202"])
def test_unknown_or_ambiguous_names_are_not_guessed(alias, spelling):
    # 'RTX6000' is Lambda's Quadro RTX 6000 (Turing), not an RTX PRO 6000; a bare 'A100' is 40 or
    # 80 GB; GB202 is the die of both the RTX PRO 6000 and the RTX 5090 (AWS g7e is an instance override)
    keys = set(alias["alias"].str.strip_chars().str.to_lowercase())
    assert spelling.lower() not in keys


@pytest.mark.parametrize("name", ["gpu", "platform", "model", "workload", "gpu_alias", "gpu_instance"])
def test_csv_files_use_empty_cells_not_na(name):
    text = resources.files("sources").joinpath("data", f"{name}.csv").read_text()
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        cells = [c.strip().strip('"') for c in line.split(",")]
        assert "NA" not in cells and "nan" not in cells and "None" not in cells, line


# --- accelerators real sources list, their identity and purchase prices ------------------


@pytest.mark.parametrize(
    ("gpu_id", "column", "value"),
    [
        ("A30", "bf16_tflops", 165),  # datasheet 330 with sparsity
        ("A30", "mem_bw_tbps", 0.933),
        ("L40", "fp8_tflops", 362),  # datasheet 724 with sparsity; the L40S is 733
        ("L40", "bf16_tflops", 181),
        ("A100-PCIe-40GB", "mem_bw_tbps", 1.555),
        ("A100-PCIe-40GB", "tdp_w", 250),
        ("V100-PCIe-16GB", "bf16_tflops", 112),  # FP16 Tensor; the SXM2 part is 125
        ("GH200-144GB", "memory_gb", 144),  # not the 96 GB GH200
        ("GH200-144GB", "mem_bw_tbps", 4.9),
        ("MI350X", "bf16_tflops", 2307),  # AMD prints dense: MI355X clocks x 2.2/2.4
        ("MI350X", "fp4_tflops", 9227),
        ("RTX-2000-Ada", "fp8_tflops", 95.95),  # datasheet "Tensor performance 191.9" is FP8 with sparsity
        ("RTX-4000-Ada", "fp8_tflops", 163.8),
        ("RTX-5000-Ada", "bf16_tflops", 261.1),
        ("Arc-Pro-B60", "memory_gb", 24),  # one GPU; the MAXSUN dual card carries two
        ("K80", "memory_gb", 12),  # one GK210; clouds rent K80s per GPU
        ("H200-NVL", "memory_gb", 141),  # RunPod's "143 GB" is nvidia-smi's 143771 MiB
    ],
)
def test_added_accelerators_dense_peaks_and_memory(gpu, gpu_id, column, value):
    assert _row(gpu, "gpu_id", gpu_id)[column] == pytest.approx(value)


def test_every_gpu_id_reads_as_one_distinct_accelerator(gpu):
    # the resolver parses catalog ids like source names: no two rows may read the same
    from sources.gpu_identity.names import parse_name

    seen = {}
    for row in gpu.iter_rows(named=True):
        parsed = parse_name(row["gpu_id"])
        assert parsed.model, row["gpu_id"]
        key = (parsed.model, parsed.form, row["memory_gb"])
        assert key not in seen, (row["gpu_id"], seen.get(key))
        seen[key] = row["gpu_id"]


def test_new_families_only_for_new_architectures(gpu):
    families = set(gpu["family"])
    assert families == {
        "nvidia-ampere", "nvidia-ampere-rtx", "nvidia-hopper", "nvidia-grace-hopper", "nvidia-blackwell",
        "nvidia-blackwell-rtx", "nvidia-ada", "nvidia-turing", "nvidia-volta", "nvidia-maxwell", "nvidia-kepler",
        "amd-cdna3", "amd-cdna4", "amd-rdna1", "intel-gaudi", "intel-xe2", "google-tpu",
    }
    fam = dict(zip(gpu["gpu_id"], gpu["family"], strict=True))
    assert fam["MI350X"] == fam["MI355X"] == "amd-cdna4"
    assert fam["GH200-144GB"] == fam["GH200"]
    assert {fam[g] for g in ("L40", "RTX-2000-Ada", "RTX-4000-Ada", "RTX-5000-Ada")} == {"nvidia-ada"}
    assert {fam[g] for g in ("RTX-PRO-4500", "RTX-PRO-6000-MaxQ")} == {"nvidia-blackwell-rtx"}


# Accelerators with a rental price in the shared price files or the bundled snapshot.
RENTED = {
    "A100-SXM-80GB", "A100-SXM-40GB", "A100-PCIe-80GB", "H100-SXM", "H100-PCIe", "H100-NVL", "H200-SXM", "H200-NVL",
    "B200", "B300", "GB200", "GB300", "MI300X", "MI325X", "MI355X", "L40S", "L40", "L4", "A10", "A10G", "A30",
    "A40", "T4", "V100-16GB", "V100-32GB", "V100-PCIe-16GB", "RTX-PRO-6000-SE", "RTX-PRO-6000-WS", "RTX-5090",
    "RTX-4090", "RTX-3090", "RTX-6000-Ada", "RTX-A6000", "RTX-A4000", "RTX-4000-Ada", "RTX-2000-Ada", "GH200",
    "Gaudi2", "Gaudi3", "K80",
}


def test_rented_accelerators_have_a_purchase_price(gpu):
    priced = gpu.filter(pl.col("price_usd_low") > 0)
    assert RENTED - set(priced["gpu_id"]) == set()
    assert priced.filter(pl.col("price_usd_high") < pl.col("price_usd_low")).is_empty()
    # per GPU, not per system: nothing above the dearest Blackwell Ultra estimate
    assert priced["price_usd_high"].max() <= 60000


def test_instance_overrides_name_catalog_gpus_with_documentation(gpu):
    instances = load_table("gpu_instance")
    assert instances.height >= 15
    assert set(instances["gpu_id"]) <= set(gpu["gpu_id"])
    assert instances["source"].str.starts_with("https://").all()
    keys = instances.select(pl.col("provider").str.to_lowercase(), pl.col("instance_type").str.to_lowercase())
    assert not keys.is_duplicated().any()
    counted = instances.filter(pl.col("gpus_per_instance").is_not_null())
    assert dict(zip(counted["instance_type"], counted["gpus_per_instance"], strict=True)) == {
        "Standard_ND96isr_H100_v5": 8, "p6e-gb200.36xlarge": 4,
    }
