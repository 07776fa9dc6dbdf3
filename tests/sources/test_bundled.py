"""The bundled offline observations load as contract frames and hold the hand-checked numbers.

Prices below were checked by hand against the shared SkyPilot catalog copies (see
sources/data/OBSERVATIONS.md); if one of these asserts fails, the CSV was edited, not the code.
"""

from __future__ import annotations

from datetime import date
from importlib import resources

import polars as pl
import pytest

from sources.bundled import SNAPSHOT_DATE, build_benchmarks, load_benchmark_results, load_price_snapshot
from sources.bundled.catalog import load_table
from sources.gpu_identity import GpuCatalog, resolve_name
from sources.kit.contracts import (
    BENCHMARK_KEY,
    BENCHMARK_METRICS,
    BENCHMARK_REQUIRED,
    BENCHMARK_RESULT,
    MAX_USD_PER_GPU_HOUR,
    PRICE_KEY,
    PRICE_QUOTE,
    PRICE_REQUIRED,
    PRICING_MODELS,
)


@pytest.fixture(scope="module")
def prices() -> pl.DataFrame:
    parsed = load_price_snapshot()
    assert parsed.rejects == []
    return parsed.rows


@pytest.fixture(scope="module")
def benchmarks() -> pl.DataFrame:
    parsed = load_benchmark_results()
    assert parsed.rejects == []
    return parsed.rows


def quote(prices: pl.DataFrame, **match: str) -> dict:
    rows = prices.filter(pl.all_horizontal([pl.col(k) == v for k, v in match.items()]))
    assert rows.height == 1, f"expected one row for {match}, got {rows.height}"
    return rows.row(0, named=True)


# --- shape -------------------------------------------------------------------------------


def test_price_snapshot_has_exact_contract_columns_and_types(prices):
    assert prices.schema == pl.Schema(PRICE_QUOTE)


def test_benchmark_results_have_exact_contract_columns_and_types(benchmarks):
    assert benchmarks.schema == pl.Schema(BENCHMARK_RESULT)


def test_source_row_numbers_data_rows_from_one(prices, benchmarks):
    assert prices["source_row"].to_list() == list(range(1, prices.height + 1))
    assert benchmarks["source_row"].to_list() == list(range(1, benchmarks.height + 1))


def test_required_columns_are_never_null(prices, benchmarks):
    assert prices.select(PRICE_REQUIRED).null_count().sum_horizontal().item() == 0
    assert benchmarks.select(BENCHMARK_REQUIRED).null_count().sum_horizontal().item() == 0


# --- price snapshot coverage and consistency ---------------------------------------------


def test_snapshot_is_large_and_broad_enough(prices):
    assert prices.height >= 80
    assert prices["gpu_name"].n_unique() >= 12
    assert prices["provider"].n_unique() >= 7
    assert set(prices["pricing"].unique()) == {"on_demand", "spot"}


def test_snapshot_values_are_in_range(prices):
    assert set(prices["pricing"].unique()) <= set(PRICING_MODELS)
    assert set(prices["currency"].unique()) == {"USD"}
    assert set(prices["source"].unique()) == {"bundled_snapshot"}
    # Rows copied from the SkyPilot catalogs carry the day those copies were read; rows read
    # from a provider's own price page carry the day that page was read (OBSERVATIONS.md 1.5):
    # CoreWeave's 7 on 2026-09-20, DigitalOcean's 1 on 2026-10-07. None is after the snapshot.
    skypilot = pl.col("source_ref").str.starts_with("skypilot-org/skypilot-catalog@")
    assert set(prices.filter(skypilot)["observed_at"].unique()) == {SNAPSHOT_DATE}
    read_from_pages = prices.filter(~skypilot).group_by("provider", "observed_at").len().sort("provider")
    assert read_from_pages.rows() == [("coreweave", date(2026, 9, 20), 7), ("digitalocean", date(2026, 10, 7), 1)]
    assert prices["observed_at"].max() == SNAPSHOT_DATE
    per_gpu = prices["usd_per_instance_hour"] / prices["gpus_per_instance"]
    assert per_gpu.min() > 0
    assert per_gpu.max() < MAX_USD_PER_GPU_HOUR


def test_no_duplicate_quote_keys(prices):
    assert prices.select(PRICE_KEY).is_duplicated().sum() == 0


def test_spot_never_above_on_demand(prices):
    keys = ["provider", "region", "zone", "instance_type"]
    od = prices.filter(pl.col("pricing") == "on_demand").select(*keys, od="usd_per_instance_hour")
    spot = prices.filter(pl.col("pricing") == "spot").select(*keys, spot="usd_per_instance_hour")
    both = od.join(spot, on=keys, nulls_equal=True)
    assert both.height > 20
    assert both.filter(pl.col("spot") > pl.col("od")).height == 0


def test_spot_rows_only_where_the_catalog_has_a_real_spot_price(prices):
    # Vast 0.00 (unknown), RunPod and Azure H100 v5 (spot == on-demand artefacts) and the
    # providers without spot must have no spot rows.
    spot = prices.filter(pl.col("pricing") == "spot")
    # CoreWeave's price page states its own spot prices for the HGX B200, H100 and H200 nodes.
    assert set(spot["provider"].unique()) == {"aws", "gcp", "azure", "nebius", "verda", "coreweave"}
    assert spot.filter(pl.col("instance_type") == "Standard_ND96isr_H100_v5").height == 0


# --- hand-checked values ------------------------------------------------------------------


def test_aws_p5_48xlarge_matches_catalog(prices):
    row = quote(prices, provider="aws", zone="use1-az2", instance_type="p5.48xlarge", pricing="on_demand")
    assert (row["region"], row["gpu_name"], row["gpus_per_instance"]) == ("us-east-1", "H100", 8.0)
    assert row["usd_per_instance_hour"] == pytest.approx(55.04)
    spot = quote(prices, provider="aws", zone="use1-az2", instance_type="p5.48xlarge", pricing="spot")
    assert spot["usd_per_instance_hour"] == pytest.approx(19.2531)
    # the single-GPU p5.4xlarge is exactly one eighth of the 8-GPU box
    small = quote(prices, provider="aws", zone="use1-az1", instance_type="p5.4xlarge", pricing="on_demand")
    assert small["usd_per_instance_hour"] * 8 == pytest.approx(55.04)


A3 = "a3-highgpu-8g"


def test_gcp_a3_highgpu_8g_is_host_plus_accelerator_row(prices):
    # host a3-highgpu-8g us-central1-a 9.46006 (spot 2.88933) + accelerator row H100 x8
    # 33.60609 (spot 23.9408); the accelerator row is already priced for all 8 GPUs.
    od = quote(prices, provider="gcp", zone="us-central1-a", instance_type=A3, pricing="on_demand")
    assert od["usd_per_instance_hour"] == pytest.approx(9.46006 + 33.60609)
    assert od["usd_per_instance_hour"] == pytest.approx(43.06615)
    assert od["gpus_per_instance"] == 8.0
    spot = quote(prices, provider="gcp", zone="us-central1-a", instance_type=A3, pricing="spot")
    assert spot["usd_per_instance_hour"] == pytest.approx(2.88933 + 23.9408)


def test_azure_nd96isr_h100_v5_count_is_corrected_to_eight(prices):
    row = quote(prices, provider="azure", region="eastus", instance_type="Standard_ND96isr_H100_v5")
    assert row["gpus_per_instance"] == 8.0  # the SkyPilot v6 file says 12
    assert row["usd_per_instance_hour"] == pytest.approx(98.32)


def test_other_spot_checks(prices):
    lam = quote(prices, provider="lambda", instance_type="gpu_8x_h100_sxm5")
    assert (lam["region"], lam["usd_per_instance_hour"]) == ("global", 31.92)
    assert quote(prices, provider="oci", instance_type="BM.GPU.MI355X.8")["usd_per_instance_hour"] == 68.8
    assert quote(prices, provider="oci", instance_type="BM.GPU.GB200.4")["gpus_per_instance"] == 4.0
    nebius = quote(
        prices,
        provider="nebius",
        region="eu-north1",
        instance_type="gpu-h100-sxm_8gpu-128vcpu-1600gb",
        pricing="spot",
    )
    assert nebius["usd_per_instance_hour"] == 10.0
    # Verda lists B300 x2 only as spot (empty on-demand price)
    verda = prices.filter(pl.col("instance_type") == "2B300.60V")
    assert verda["pricing"].to_list() == ["spot"]
    assert verda["usd_per_instance_hour"].item() == pytest.approx(4.893)
    runpod = quote(prices, provider="runpod", instance_type="4x_RTXPRO6000_SECURE")
    assert runpod["usd_per_instance_hour"] / runpod["gpus_per_instance"] == pytest.approx(2.09)


def test_gpu_spellings_are_the_catalog_spellings(prices):
    # The resolver reads exactly these (by gpu_alias or by name); a new spelling here must
    # resolve, or the offline night rejects its rows.
    assert set(prices["gpu_name"].unique()) == {
        "A100-80GB",
        "B200",
        "B300",
        "GB200",
        "GB300",
        "H100",
        "H100-MEGA",
        "H200",
        "L4",
        "L40S",
        "MI300X",
        "MI355X",
        "RTX-PRO-6000",
        "RTX4090",
        "RTX5090",
        "RTXPRO6000",
        "RTXPRO6000S",
        "RTXPro6000",
        # read from the providers' own price pages (OBSERVATIONS.md 1.5)
        "NVIDIA GB200 NVL72",
        "NVIDIA HGX B200",
        "NVIDIA HGX H100",
        "NVIDIA HGX H200",
        "amd_mi300x",
    }


def test_provider_page_rows_match_their_pages(prices):
    # CoreWeave's page: GB200 NVL72 $42.00 per 4-GPU tray-hour, HGX B200 $68.80 per 8-GPU
    # node-hour, so $10.50 against $8.60 per GPU-hour (issue 35's same-provider figures).
    gb200 = quote(prices, provider="coreweave", instance_type="gb200-4x", pricing="on_demand")
    assert (gb200["gpus_per_instance"], gb200["usd_per_instance_hour"]) == (4.0, 42.0)
    assert gb200["usd_per_instance_hour"] / gb200["gpus_per_instance"] == pytest.approx(10.50)
    b200 = quote(prices, provider="coreweave", instance_type="NVIDIA HGX B200", pricing="on_demand")
    assert b200["usd_per_instance_hour"] / b200["gpus_per_instance"] == pytest.approx(8.60)
    b200_spot = quote(prices, provider="coreweave", instance_type="NVIDIA HGX B200", pricing="spot")
    assert b200_spot["usd_per_instance_hour"] == pytest.approx(34.11)
    mi300x = quote(prices, provider="digitalocean", instance_type="gpu-mi300x1-192gb")
    assert (mi300x["gpus_per_instance"], mi300x["usd_per_instance_hour"]) == (1.0, 2.59)


# --- benchmark results --------------------------------------------------------------------


def test_benchmark_rows_are_mlperf_plus_seed(benchmarks):
    # 148 H100-SXM / MI300X results + 126 of the other accelerators (two shared files), the 191
    # LLM results of MLPerf Inference v5.0 (sources/data/mlperf_inference_v5.0.csv) + the seed
    assert benchmarks.height == 466
    assert benchmarks.filter(pl.col("source") == "bundled_mlperf").height == 465
    assert benchmarks.filter(pl.col("source") == "bundled_user_run").height == 1
    assert benchmarks["source"][-1] == "bundled_user_run"  # MLPerf order kept, seed last


def test_benchmark_values_are_in_range(benchmarks):
    assert set(benchmarks["metric"].unique()) <= set(BENCHMARK_METRICS)
    assert benchmarks.filter(pl.col("value") <= 0).height == 0
    assert benchmarks.select(BENCHMARK_KEY).is_duplicated().sum() == 0
    mlperf = benchmarks.filter(pl.col("source") == "bundled_mlperf")
    # the shared files' gpu_type, but the submitter's spelling where gpu_type names another part
    # ('A100' is ambiguous, 'GH200' is the 96 GB superchip): a new spelling needs the resolver
    assert set(mlperf["gpu_name"].unique()) == {
        "B200", "GB200", "GH200", "Gaudi2", "H100-NVL", "H100-PCIe", "H100-SXM", "H200-NVL", "H200-SXM", "L40S",
        "MI300X", "MI325X", "NVIDIA A100-SXM4-80GB", "NVIDIA GH200 Grace Hopper Superchip 144GB",
        "TPU-Trillium", "TPU-v5p",
    }
    assert mlperf["workload_id"].null_count() == 0


def test_mlperf_conversion_examples(benchmarks):
    first = benchmarks.row(0, named=True)
    assert first["workload_id"] == "llama2-70b-offline"
    assert (first["metric"], first["value"], first["unit"]) == ("tokens_per_s", 3062.72, "tokens/s")
    assert first["precision"] == "fp8"
    assert first["measured_at"] == date(2024, 8, 28)
    assert first["source_ref"].startswith("mlcommons/inference_results_v4.1@198fc467")
    training = benchmarks.filter(pl.col("scenario") == "training", pl.col("source") == "bundled_mlperf")
    assert training.height == 63 + 80
    assert set(training["metric"].unique()) == {"time_to_train_min"}
    assert training["precision"].null_count() == training.height  # no training result declares one
    # NVIDIA-stack inference rows declared fp16 (+ quantization) run FP8, FP4 on B200 (OBSERVATIONS.md)
    nvidia = benchmarks.filter(pl.col("metric") == "tokens_per_s", pl.col("round").is_in(["v4.0", "v4.1"]),
                               pl.col("gpu_name") != "MI300X")
    assert dict(nvidia.group_by("precision").len().iter_rows()) == {"fp8": 51 + 44, "fp4": 2}
    assert set(nvidia.filter(pl.col("precision") == "fp4")["gpu_name"]) == {"B200"}


def test_training_rates_are_the_logged_step_times(benchmarks):
    # GB200 LoRA on 8 Dell XE9712 nodes: 8 sequences x 8,192 tokens / 0.4154 s / 32 GPUs = 4,930.2
    # tokens/s per GPU (the run logs' median of medians is 0.4155 s); minutes stay the value
    row = benchmarks.filter(pl.col("system") == "8xXE9712x4GB200").row(0, named=True)
    assert (row["value"], row["unit"], row["median_step_s"]) == (3.137, "min", 0.4154)
    assert row["per_gpu_value"] == pytest.approx(8 * 8192 / 0.4154 / 32, abs=0.1)
    # results whose logs carry no step timing keep their time to train only
    h200 = benchmarks.filter(pl.col("system") == "h200_ngc24.04_nemo").row(0, named=True)
    assert (h200["value"], h200["per_gpu_value"], h200["global_batch_size"]) == (24.689, None, 8.0)
    with_rate = benchmarks.filter(pl.col("suite") == "MLPerf Training", pl.col("per_gpu_value").is_not_null())
    assert with_rate.height == 11 + 35  # 11 H100-SXM results (OBSERVATIONS.md 2.1) and 35 of the others


def test_every_bundled_result_has_a_gpu_a_platform_and_a_workload(benchmarks):
    """Each row names an accelerator the resolver knows and the catalog can host, and a workload
    measured in the row's scenario, so the night can model it (a GPU with no platform has no layout)."""
    catalog = GpuCatalog.from_frames(load_table("gpu"), load_table("gpu_alias"), load_table("gpu_instance"))
    hosted = set(load_table("platform")["gpu_id"])
    scenarios = dict(load_table("workload").select("workload_id", "scenario").iter_rows())
    for row in benchmarks.iter_rows(named=True):
        found = resolve_name(row["gpu_name"], catalog)
        assert found.gpu in hosted, (row["gpu_name"], found.unresolved)
        assert row["workload_id"] in scenarios, row["benchmark"]
        assert (scenarios[row["workload_id"]] or "training") == row["scenario"], row["workload_id"]


def test_no_result_of_the_outside_check_is_bundled(benchmarks):
    """Inference v5.1 / Training v5.1 and later are bundled for H100-SXM and MI300X only: the other
    accelerators' results of those rounds are how the model is checked from outside."""
    catalog = GpuCatalog.from_frames(load_table("gpu"), load_table("gpu_alias"), load_table("gpu_instance"))
    late = [row for row in benchmarks.iter_rows(named=True)
            if row["round"] and tuple(int(n) for n in row["round"].lstrip("v").split(".")) >= (5, 1)]
    # mlperf_h100_mi300x.csv's v5.1 rows: inference 16 MI300X + 10 H100, training 5 MI300X + 4 H100
    assert len(late) == 16 + 10 + 5 + 4
    assert {resolve_name(row["gpu_name"], catalog).gpu for row in late} == {"H100-SXM", "MI300X"}


@pytest.mark.skipif(not (build_benchmarks.DEFAULT_SHARED / build_benchmarks.RUNS_FILE).exists(),
                    reason="the shared MLPerf extracts are not beside this checkout")
def test_the_committed_csv_is_what_the_build_script_writes():
    current = build_benchmarks.TARGET.read_text(encoding="utf-8")
    assert build_benchmarks.build(build_benchmarks.DEFAULT_SHARED, current) == current


@pytest.mark.parametrize(("suite", "round_", "gpu"), [("MLPerf Inference", "v5.1", "B200"),
                                                      ("MLPerf Training", "v6.0", "GB200")])
def test_the_build_refuses_a_result_of_the_outside_check(suite, round_, gpu):
    row = {"row_id": "1", "suite": suite, "round": round_, "gpu_type": gpu}
    with pytest.raises(ValueError, match="held out"):
        build_benchmarks.convert(row, None, {}, {})


@pytest.mark.parametrize(
    ("gpu", "declared", "note", "expected"),
    [
        ("H200-SXM", "fp16", "JSON declares fp16 + quantization; NVIDIA v4.1 documentation", "fp8"),
        ("B200", "fp16", "JSON declares fp16 + quantization; NVIDIA v4.1 documentation", "fp4"),
        ("H200-SXM", "", "NVIDIA TensorRT-LLM submission (FP8 on Hopper per NVIDIA calibration docs)", "fp8"),
        ("MI300X", "fp16", "", "fp16"),
        ("MI300X", "", "", ""),
    ],
)
def test_precision_is_what_the_gemms_ran_in(gpu, declared, note, expected):
    row = {"row_id": "1", "gpu_type": gpu, "precision_declared": declared, "precision_note": note}
    assert build_benchmarks.precision(row) == expected


def test_seed_row(benchmarks):
    seed = benchmarks.filter(pl.col("suite") == "user_run").row(0, named=True)
    assert seed["workload_id"] == "dflash-qwen36-27b"
    assert seed["gpu_name"] == "RTX PRO 6000 Blackwell Workstation Edition"
    assert (seed["gpu_count"], seed["nodes"], seed["role_split"]) == (4, 1, "3+1")
    assert (seed["metric"], seed["value"], seed["unit"]) == ("tokens_per_s", 14800.0, "target tokens/s")
    assert seed["per_gpu_value"] == 3700.0
    assert seed["precision"] == "bf16"
    assert seed["measured_at"] == date(2026, 11, 1)
    assert seed["round"] is None


@pytest.mark.parametrize(
    ("filename", "loader"),
    [("price_snapshot.csv", load_price_snapshot), ("benchmark_results.csv", load_benchmark_results)],
)
def test_no_written_cell_is_lost_in_the_cast(filename, loader):
    # conform() turns an uncastable cell into null; in bundled data that would be a typo.
    with resources.as_file(resources.files("sources") / "data" / filename) as path:
        raw = pl.read_csv(path, infer_schema_length=0)
    typed = loader().rows.select(raw.columns)
    assert typed.null_count().row(0) == raw.null_count().row(0)
