"""SkyPilot catalog source: parse of small real-format fixtures, every trap, and faults.

Fetch tests use `tests.sources.fakes.fake_session`: only the socket is fake, so urllib3's
retry loop from `sources.kit.http.make_session` runs for real. Nothing here touches the network.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest
import requests

from sources import skypilot
from sources.kit.spec import Payload, SourceError
from tests.sources.fakes import fake_session
from tests.sources.fakes import url_key as _key

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHARED_PRICES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "prices"
DAY = date(2026, 3, 1)


# --- helpers ----------------------------------------------------------------------------------

def payload(name: str, provider: str | None = None, body: bytes | None = None) -> Payload:
    path = FIXTURES / "skypilot" / name
    return Payload("skypilot", name, path.read_bytes() if body is None else body, str(path), provider)


def rows_of(parsed, instance: str) -> dict[tuple[str | None, str], dict]:
    frame = parsed.rows.filter(pl.col("instance_type") == instance)
    return {(r["zone"] or r["region"], r["pricing"]): r for r in frame.to_dicts()}


# --- parse: hand-computed rows ----------------------------------------------------------------

def test_aws_p5_48xlarge_is_8_gpus_at_55_04_per_instance_hour():
    parsed = skypilot.parse(payload("aws_vms.csv", "aws"), DAY)
    p5 = rows_of(parsed, "p5.48xlarge")
    od = p5[("use1-atl2-az1", "on_demand")]
    assert od["gpus_per_instance"] == 8.0
    assert od["usd_per_instance_hour"] == pytest.approx(55.04)
    assert od["usd_per_instance_hour"] / od["gpus_per_instance"] == pytest.approx(6.88)
    assert p5[("use1-atl2-az1", "spot")]["usd_per_instance_hour"] == pytest.approx(10.2397)
    assert p5[("use1-az1", "spot")]["usd_per_instance_hour"] == pytest.approx(55.04)
    one = rows_of(parsed, "p5.4xlarge")
    assert set(one) == {("use1-az1", "on_demand")}  # empty SpotPrice: no spot row
    assert one[("use1-az1", "on_demand")]["usd_per_instance_hour"] == pytest.approx(6.88)
    assert od["provider"] == "aws" and od["region"] == "us-east-1" and od["currency"] == "USD"
    assert od["source"] == "skypilot" and od["source_row"] == 1 and od["observed_at"] == DAY
    assert od["source_ref"].startswith(str(FIXTURES / "skypilot" / "aws_vms.csv") + "#sha256=")
    # 2 + 2 (p5.48xlarge) + 1 (p5.4xlarge) + 1 (p5e spot) + 2 (g6f) + 1 (row 8 spot) = 9
    assert parsed.rows.height == 9
    assert parsed.rows.schema == pl.Schema(skypilot.PRICE_QUOTE)


def test_bad_price_is_rejected_with_rule_and_row_but_the_spot_price_survives():
    parsed = skypilot.parse(payload("aws_vms.csv", "aws"), DAY)
    bad = [r for r in parsed.rejects if r.rule == "unparseable_price"]
    assert [(r.source_row, r.detail) for r in bad] == [(8, "row 8: Price 'abc' is not a number")]
    assert rows_of(parsed, "p5.48xlarge")[("use1-az6", "spot")]["usd_per_instance_hour"] == 17.6289


def test_capacity_block_only_type_yields_spot_only_and_cpu_rows_vanish_silently():
    parsed = skypilot.parse(payload("aws_vms.csv", "aws"), DAY)
    assert set(rows_of(parsed, "p5e.48xlarge")) == {("apse3-az1", "spot")}
    assert rows_of(parsed, "m5.large") == {}
    assert {r.source_row for r in parsed.rejects} == {8, 9}  # nothing for the CPU row 7


def test_known_sku_with_a_wrong_count_is_rejected_not_repaired():
    parsed = skypilot.parse(payload("aws_vms.csv", "aws"), DAY)
    (reject,) = [r for r in parsed.rejects if r.rule == "gpu_count_mismatch"]
    assert reject.detail == "row 9: p4d.24xlarge has 8 GPUs, catalog says 4"
    azure = skypilot.parse(payload("azure_vms.csv", "azure"), DAY)
    (reject,) = [r for r in azure.rejects if r.rule == "gpu_count_mismatch"]
    assert "Standard_ND96asr_v4 has 8 GPUs, catalog says 4" in reject.detail


def test_fractional_gpu_counts_are_kept_as_floats():
    aws = rows_of(skypilot.parse(payload("aws_vms.csv", "aws"), DAY), "g6f.large")
    assert aws[("use1-az1", "on_demand")]["gpus_per_instance"] == 0.125
    assert aws[("use1-az1", "on_demand")]["usd_per_instance_hour"] == 0.2022  # not divided
    azure = rows_of(skypilot.parse(payload("azure_vms.csv", "azure"), DAY), "Standard_NV6ads_A10_v5")
    assert azure[("eastus", "on_demand")]["gpus_per_instance"] == 0.167
    assert azure[("eastus", "spot")]["usd_per_instance_hour"] == 0.0908


def test_azure_nd96isr_h100_v5_count_12_is_corrected_to_8():
    parsed = skypilot.parse(payload("azure_vms.csv", "azure"), DAY)
    nd = rows_of(parsed, "Standard_ND96isr_H100_v5")
    assert {k: (r["gpus_per_instance"], r["usd_per_instance_hour"]) for k, r in nd.items()} == {
        ("eastus", "on_demand"): (8.0, 98.32), ("eastus", "spot"): (8.0, 98.32),
        ("westus", "on_demand"): (8.0, 127.816), ("westus", "spot"): (8.0, 127.816),
    }
    assert nd[("eastus", "on_demand")]["zone"] is None  # Azure v6 has no AvailabilityZone
    assert rows_of(parsed, "Standard_NCC40ads_H100_v5") == {}  # no accelerator named: dropped
    assert rows_of(parsed, "Standard_NC6_Promo") == {}  # promotional meter: not a list price
    assert [r.rule for r in parsed.rejects] == ["gpu_count_mismatch"]


def test_gcp_instance_price_is_host_plus_gpus_per_zone_and_pricing():
    parsed = skypilot.parse(payload("gcp_vms.csv", "gcp"), DAY)
    got = {
        (r["instance_type"], r["pricing"]):
            (r["gpu_name"], r["gpus_per_instance"], r["usd_per_instance_hour"])
        for r in parsed.rows.filter(pl.col("zone") == "us-central1-a").to_dicts()
    }
    expected = {
        # host + A100 x1 row (exact count)
        ("a2-highgpu-1g", "on_demand"): ("A100", 1.0, 0.73948 + 2.934),  # 3.67348
        ("a2-highgpu-1g", "spot"): ("A100", 1.0, 0.36975 + 0.8802),  # 1.24995
        # host + H100 x4 row / 4 (no x1 row; GCP prices GPUs per GPU-hour)
        ("a3-highgpu-1g", "on_demand"): ("H100", 1.0, 1.18251 + 4.20076),  # 5.38327
        ("a3-highgpu-1g", "spot"): ("H100", 1.0, 0.36117 + 2.9926),  # 3.35377
        ("a3-highgpu-4g", "on_demand"): ("H100", 4.0, 4.73004 + 16.80304),  # 21.53308
        ("a3-highgpu-4g", "spot"): ("H100", 4.0, 1.44468 + 11.9704),  # 13.41508
        # g2-standard-24 carries 2 L4; only an L4 x1 row exists
        ("g2-standard-24", "on_demand"): ("L4", 2.0, 0.88 + 2 * 0.56004),  # 2.00008
        ("g2-standard-24", "spot"): ("L4", 2.0, 0.35 + 2 * 0.2231),  # 0.7962
        ("a3-megagpu-8g", "on_demand"): ("H100-MEGA", 8.0, 9.46006 + 82.75421),  # 92.21427
        ("a3-megagpu-8g", "spot"): ("H100-MEGA", 8.0, 2.88933 + 25.2808),  # 28.17013
    }
    assert got.keys() == expected.keys()
    for key, (gpu, count, usd) in expected.items():
        assert got[key][:2] == (gpu, count)
        assert got[key][2] == pytest.approx(usd, abs=1e-9)
    assert parsed.rows.height == 10  # n1 host, attachable T4 and unknown host give no rows


def test_gcp_host_without_gpu_price_or_unknown_host_is_rejected():
    parsed = skypilot.parse(payload("gcp_vms.csv", "gcp"), DAY)
    rules = sorted((r.rule, r.source_row) for r in parsed.rejects)
    assert rules == [("missing_gpu_price", 2), ("missing_gpu_price", 2), ("unknown_sku", 7)]
    assert "a3-edgegpu-8g" in [r for r in parsed.rejects if r.rule == "unknown_sku"][0].detail


def test_vast_spot_price_zero_means_unknown_and_regions_keep_their_commas():
    parsed = skypilot.parse(payload("vast_vms.csv", "vast"), DAY)
    assert parsed.rows.select("instance_type", "region", "pricing", "usd_per_instance_hour").rows() == [
        ("1x-H200-32-65536", "France, FR, EU", "on_demand", 2.65),
        ("2x-H200-32-65536", "Michigan, US, NA", "on_demand", 5.18),
    ]
    assert parsed.rejects == []


def test_verda_column_order_and_empty_price_with_spot():
    parsed = skypilot.parse(payload("verda_vms.csv", "verda"), DAY)
    assert parsed.rows.select("instance_type", "gpu_name", "gpus_per_instance", "pricing",
                              "usd_per_instance_hour").rows() == [
        ("1B300.30V", "B300", 1.0, "on_demand", 6.99),
        ("1B300.30V", "B300", 1.0, "spot", 2.447),
        ("2B300.60V", "B300", 2.0, "spot", 4.893),
    ]


def test_lambda_columns_read_by_name_and_cpu_types_dropped():
    parsed = skypilot.parse(payload("lambda_vms.csv", "lambda"), DAY)
    assert parsed.rows.select("instance_type", "region", "usd_per_instance_hour").rows() == [
        ("gpu_8x_h100_sxm5", "europe-central-1", 31.92)
    ]


def test_provider_comes_from_the_url_when_not_given():
    url = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/vast/vms.csv"
    body = (FIXTURES / "skypilot" / "vast_vms.csv").read_bytes()
    parsed = skypilot.parse(Payload("skypilot", "vast_vms.csv", body, url), DAY)
    assert set(parsed.rows["provider"]) == {"vast"}
    with pytest.raises(SourceError, match="cannot tell which cloud"):
        skypilot.parse(Payload("skypilot", "mine.csv", body, "/tmp/mine.csv"), DAY)


# --- parse: whole-payload faults --------------------------------------------------------------

def test_renamed_column_raises_naming_the_column():
    body = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes().replace(b"SpotPrice", b"Spot_Price", 1)
    expected = r"\[skypilot\] aws_vms.csv: required column\(s\) SpotPrice missing"
    with pytest.raises(SourceError, match=expected):
        skypilot.parse(payload("aws_vms.csv", "aws", body), DAY)


def test_truncated_csv_raises_rather_than_trusting_the_cut_row():
    body = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes()
    cut = body[: body.index(b"55.04,10.2397") + 4]  # ends "...55.0": would read as 55.0
    with pytest.raises(SourceError, match="truncated"):
        skypilot.parse(payload("aws_vms.csv", "aws", cut), DAY)


def test_empty_body_raises_and_a_short_row_is_rejected():
    with pytest.raises(SourceError, match="empty body"):
        skypilot.parse(payload("aws_vms.csv", "aws", b""), DAY)
    body = (FIXTURES / "skypilot" / "vast_vms.csv").read_bytes() + b"3x-H200,H200,3\r\n"
    parsed = skypilot.parse(payload("vast_vms.csv", "vast", body), DAY)
    assert [(r.rule, r.detail) for r in parsed.rejects] == [
        ("malformed_row", "row 3: has 3 fields, the header has 9")
    ]


def test_every_shared_real_file_parses():
    if not SHARED_PRICES.is_dir():
        pytest.skip(f"{SHARED_PRICES} not present")
    files = sorted(SHARED_PRICES.glob("*_vms*.csv"))
    assert files
    for path in files:
        provider = path.name.split("_")[0]
        item = Payload("skypilot", path.name, path.read_bytes(), str(path), provider)
        if path.name == "gcp_vms_2022-07-26_skypilot_legacy.csv":
            # Old layout: GPU/TPU rows only, no host VMs, so no instance price can be composed.
            with pytest.raises(SourceError, match="no host VM rows.*legacy"):
                skypilot.parse(item, DAY)
            continue
        parsed = skypilot.parse(item, DAY)
        assert parsed.rows.height > 0, path.name
        assert parsed.rows["usd_per_instance_hour"].min() > 0, path.name
        assert parsed.rows["gpus_per_instance"].min() > 0, path.name
        assert set(parsed.rows["provider"]) == {provider}
        assert set(parsed.rows["currency"]) == {"USD"}


# --- fetch ------------------------------------------------------------------------------------

def url(cloud: str, version: str = "v8") -> str:
    return skypilot.URL.format(version=version, cloud=cloud)


def test_fetch_returns_one_raw_payload_per_cloud_and_falls_back_to_v6():
    aws = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes()
    azure = (FIXTURES / "skypilot" / "azure_vms.csv").read_bytes()
    session, fake = fake_session({url("aws"): [aws], url("azure", "v6"): [azure]})
    got = skypilot.fetch(session, DAY, clouds=("aws", "azure"))
    assert [(p.name, p.provider, p.url, p.body) for p in got] == [
        ("aws_vms.csv", "aws", url("aws"), aws),
        ("azure_vms.csv", "azure", url("azure", "v6"), azure),
    ]
    assert [_key(c) for c in fake.calls] == [_key(u) for u in (url("aws"), url("azure"), url("azure", "v7"),
                                                               url("azure", "v6"))]


def test_fetch_retries_a_500_through_the_shared_session():
    aws = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes()
    session, fake = fake_session({url("aws"): [(500, b"oops", {}), aws]})
    (got,) = skypilot.fetch(session, DAY, clouds=("aws",))
    assert got.body == aws
    assert len(fake.calls) == 2


def test_a_timed_out_cloud_does_not_stop_the_others():
    vast = (FIXTURES / "skypilot" / "vast_vms.csv").read_bytes()
    session, _ = fake_session({url("aws"): [requests.Timeout("read timed out")], url("vast"): [vast]})
    got = skypilot.fetch(session, DAY, clouds=("aws", "vast"))
    assert [p.provider for p in got] == ["vast"]


def test_fetch_raises_only_when_every_cloud_fails_and_names_them():
    session, _ = fake_session({
        url("aws"): [requests.ReadTimeout("read timed out")], url("gcp"): [(503, b"", {})],
    })
    with pytest.raises(SourceError) as info:
        skypilot.fetch(session, DAY, clouds=("aws", "gcp"))
    message = str(info.value)
    assert message.startswith("[skypilot] every cloud failed: ")
    assert ("read timed out" in message or "did not answer" in message) and "(aws)" in message
    assert "HTTP 503" in message and message.endswith("(gcp)")


def test_fetch_detects_a_body_shorter_than_its_content_length():
    aws = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes()
    session, _ = fake_session({url("aws"): [(200, aws[:100], {"Content-Length": str(len(aws))})]})
    with pytest.raises(SourceError, match=r"ended the response early .*\(aws\)"):
        skypilot.fetch(session, DAY, clouds=("aws",))


# --- what the payload says about the GPU --------------------------------------------------------

def memory_by_instance(name: str, provider: str) -> dict[str, float | None]:
    parsed = skypilot.parse(payload(name, provider), DAY)
    return dict(zip(parsed.rows["instance_type"], parsed.rows["gpu_memory_gb"], strict=True))


def test_gpu_memory_from_gpuinfo_in_each_cloud_s_unit():
    # AWS writes MiB (81920 -> 80 GB); RunPod and Shadeform write GB into the MiB field (80 -> 80)
    aws = memory_by_instance("aws_vms.csv", "aws")
    assert aws["p5.48xlarge"] == 80.0
    # g6f.large is an eighth of an L4 and reports the eighth (2861 MiB): the card has 8x that
    assert aws["g6f.large"] == pytest.approx(2861 / 1024 / 0.125)
    assert memory_by_instance("runpod_vms.csv", "runpod") == {"1x_A100-80GB_SECURE": 80.0, "2x_A100-80GB_SECURE": 80.0}
    # Vast writes the TOTAL of all GPUs: 287542 MiB for 2x H200 is 140.4 GB each, like the 1x offer
    vast = memory_by_instance("vast_vms.csv", "vast")
    assert vast["2x-H200-32-65536"] == pytest.approx(143771 / 1024) == vast["1x-H200-32-65536"]
    # Azure v6 writes a plain name: nothing to say
    assert set(memory_by_instance("azure_vms.csv", "azure").values()) == {None}


def test_shadeform_rows_name_the_cloud_that_runs_them():
    parsed = skypilot.parse(payload("shadeform_vms.csv", "shadeform"), DAY)
    got = {r["instance_type"]: (r["underlying_provider"], r["gpu_memory_gb"], r["usd_per_instance_hour"])
           for r in parsed.rows.iter_rows(named=True)}
    assert got == {
        "crusoe_A100-80G-sxm4x8": ("crusoe", 80.0, 14.0),
        "lambdalabs_A6000x4": ("lambda", 48.0, 3.2),  # gpucalc's id for Lambda
        "massedcompute_A6000x8": ("massedcompute", None, 5.6),  # no MemoryInfo in this row
    }
    assert set(parsed.rows["provider"]) == {"shadeform"}


def test_vast_catalog_prices_are_bucket_medians():
    parsed = skypilot.parse(payload("vast_vms.csv", "vast"), DAY)
    assert set(parsed.rows["price_statistic"]) == {"median"}
    aws = skypilot.parse(payload("aws_vms.csv", "aws"), DAY)
    assert set(aws.rows["price_statistic"]) == {"list"} and set(aws.rows["underlying_provider"]) == {None}


# --- one bad row is one reject ------------------------------------------------------------------

@pytest.mark.parametrize(("old", "new", "rule"), [
    (b",55.04,10.239700,", b",1e308,10.239700,", "implausible_value"),
    (b",55.04,10.239700,", b",nan,10.239700,", "non_finite_value"),
    (b"p5.48xlarge,H100,8.0,", b"p5.48xlarge,H100,1e300,", "implausible_value"),
])
def test_hostile_numbers_are_one_named_reject(old, new, rule):
    body = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes().replace(old, new, 1)
    parsed = skypilot.parse(payload("aws_vms.csv", "aws", body), DAY)
    assert (1, rule) in [(r.source_row, r.rule) for r in parsed.rejects]
    assert parsed.rows.height >= 7


def test_spec_limits_the_size():
    assert skypilot.SPEC.max_bytes == 32 * 1024 * 1024
