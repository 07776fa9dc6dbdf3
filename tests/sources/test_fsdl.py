"""FSDL cloud-gpus.csv: whole-instance prices, spot when given, names made up or qualified
where the table leaves them ambiguous, bad rows rejected, header problems are SourceErrors."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from sources import fsdl
from sources.kit import registry
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import Payload, SourceError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "fsdl" / "cloud-gpus.csv"
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "prices" / "fsdl_cloud-gpus.csv"
DAY = date(2026, 6, 2)


def payload(body: bytes, name: str = "cloud-gpus.csv") -> Payload:
    return Payload(source="fsdl", name=name, body=body, url=f"/tmp/{name}")


def parsed_fixture():
    return fsdl.parse(payload(FIXTURE.read_bytes()), DAY)


def row(parsed, provider: str, instance_type: str, pricing: str = "on_demand") -> dict:
    frame = parsed.rows.filter(
        (parsed.rows["provider"] == provider)
        & (parsed.rows["instance_type"] == instance_type)
        & (parsed.rows["pricing"] == pricing)
    )
    assert frame.height == 1, (provider, instance_type, pricing, parsed.rows)
    return frame.row(0, named=True)


def test_on_demand_and_spot_are_whole_instance_prices():
    parsed = parsed_fixture()
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    p5 = row(parsed, "aws", "p5.48xlarge")
    # 55.04 USD for the 8-GPU instance (6.88 per GPU-hour is the Per-GPU column, not loaded)
    assert p5["usd_per_instance_hour"] == pytest.approx(55.04)
    assert p5["gpus_per_instance"] == 8.0
    assert (p5["gpu_name"], p5["region"], p5["zone"], p5["currency"]) == ("H100 (80 GB)", "global", None, "USD")
    assert (p5["source"], p5["source_ref"], p5["source_row"], p5["observed_at"]) == ("fsdl", "cloud-gpus.csv", 1, DAY)
    assert row(parsed, "aws", "p5.48xlarge", "spot")["usd_per_instance_hour"] == pytest.approx(22.00)
    # an empty Spot is no spot row, not a zero price
    oracle = parsed.rows.filter(parsed.rows["provider"] == "oracle-cloud")
    assert oracle["pricing"].to_list() == ["on_demand"]
    assert oracle["usd_per_instance_hour"].to_list() == [pytest.approx(24.40)]
    assert oracle["instance_type"].to_list() == ["BM.GPU4.8"]


def test_made_up_and_qualified_instance_names():
    parsed = parsed_fixture()
    # GCP's one host name with two different GPUs attached: two offers, two names
    t4 = row(parsed, "gcp", "n1-highmem-8 + 1x T4 (16 GB)")
    v100 = row(parsed, "gcp", "n1-highmem-8 + 2x V100 (16 GB)", "spot")
    assert (t4["usd_per_instance_hour"], t4["gpus_per_instance"]) == (pytest.approx(0.82), 1.0)
    assert (v100["usd_per_instance_hour"], v100["gpus_per_instance"]) == (pytest.approx(1.60), 2.0)
    # no Name: GPUs, type and host shape (the vCPU range stays as written)
    cudo = row(parsed, "cudo-compute", "2x A6000 (48 GB), 20-26 vCPU, 64 GB RAM")
    assert (cudo["gpu_name"], cudo["usd_per_instance_hour"], cudo["source_row"]) == ("A6000 (48 GB)", 1.60, 5)
    assert row(parsed, "runpod", "1x A40 (48 GB), 9 vCPU, 50 GB RAM", "spot")["usd_per_instance_hour"] == 0.49
    assert parsed.rows.height == 10  # p5 2, oracle 1, gcp 2 + 2, cudo 1, runpod 2


def test_bad_rows_are_rejected_with_the_reason():
    parsed = parsed_fixture()
    rules = {r.source_row: (r.rule, r.detail) for r in parsed.rejects}
    assert set(rules) == {6, 8}
    assert rules[8][0] == "fsdl_unparseable_price"
    assert "On-demand='call us'" in rules[8][1] and "Lambda" in rules[8][1]
    # Exoscale gives only Per-GPU: ambiguous, so not guessed
    assert rules[6][0] == "fsdl_no_price" and "Per-GPU='1.34'" in rules[6][1]
    assert not parsed.rows.filter(parsed.rows["provider"].is_in(["lambda", "exoscale"])).height
    reject = next(r for r in parsed.rejects if r.source_row == 8)
    assert reject.row["Name"] == "gpu_1x_a10" and reject.source == "fsdl"


def test_columns_are_read_by_name_and_a_bad_gpu_count_is_a_reject():
    body = (
        b"Name,Spot,On-demand,GPUs,GPU Type,Cloud\n"
        b"a2-highgpu-8g,8.80,29.39,8,A100 (40 GB),GCP\n"
        b"mystery,,1.00,many,A10 (24 GB),GCP\n"
    )
    parsed = fsdl.parse(payload(body), DAY)
    a2 = row(parsed, "gcp", "a2-highgpu-8g")
    assert (a2["usd_per_instance_hour"], a2["gpus_per_instance"], a2["gpu_name"]) == (29.39, 8.0, "A100 (40 GB)")
    assert row(parsed, "gcp", "a2-highgpu-8g", "spot")["usd_per_instance_hour"] == 8.80
    [reject] = parsed.rejects
    assert (reject.source_row, reject.rule) == (2, "fsdl_bad_gpu_count")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"Cloud,GPU Type,GPUs,Spot,Name\nAWS,T4 (16 GB),1,0.36,g4dn.xlarge\n", "'On-demand'"),
        (b"Cloud,GPUs,On-demand\nAWS,1,0.5\n", "'GPU Type', 'Name'"),
        (b"", "empty file"),
        (FIXTURE.read_bytes().splitlines(keepends=True)[0], "no rows"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
    ],
)
def test_malformed_payloads_are_source_errors(body, message):
    with pytest.raises(SourceError, match=message):
        fsdl.parse(payload(body), DAY)


def test_file_only_and_registered():
    spec = registry.spec_for("fsdl")
    assert spec is fsdl.SPEC and not spec.live and spec.key_env is None
    assert "fsdl" not in registry.live_sources()
    with pytest.raises(SourceError, match="fsdl is file-only: use gpucalc ingest fsdl --file PATH"):
        fsdl.fetch(None, DAY)


def test_the_real_shared_file_parses():
    if not SHARED.is_file():
        pytest.skip(f"{SHARED} not present")
    parsed = fsdl.parse(payload(SHARED.read_bytes(), SHARED.name), DAY)
    assert parsed.rows.height > 250
    assert {r.rule for r in parsed.rejects} <= {"fsdl_no_price"}  # the Exoscale rows without On-demand
    p4de = row(parsed, "aws", "p4de.24xlarge")
    assert (p4de["usd_per_instance_hour"], p4de["gpus_per_instance"]) == (pytest.approx(40.97), 8.0)


def test_memory_per_gpu_is_the_gb_in_the_gpu_type():
    parsed = parsed_fixture()
    assert row(parsed, "aws", "p5.48xlarge")["gpu_memory_gb"] == 80.0  # "H100 (80 GB)", not GPU RAM 640
    assert row(parsed, "gcp", "n1-highmem-8 + 1x T4 (16 GB)")["gpu_memory_gb"] == 16.0


def test_a_row_with_an_extra_field_or_cut_short_is_rejected_alone():
    header = FIXTURE.read_bytes().splitlines(keepends=True)[0]
    body = header + b"AWS,H100 (80 GB),Hopper,8,640,192,2048,55,04,6.88,22.00,p5.48xlarge\n" + (
        b"AWS,A100 (40 GB),Ampere,8,320,96,1152,32.77,4.10,9.83,p4d.24xlarge\n"
        b"AWS,A100 (80 GB),Ampere,8,640,96,1152,40.97,5.12,,p4de.24xl")
    parsed = fsdl.parse(payload(body), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(1, "malformed_row"), (3, "possibly_truncated")]
    assert parsed.rows["instance_type"].unique().to_list() == ["p4d.24xlarge"]


def test_hostile_numbers_are_named():
    body = b"Cloud,GPU Type,GPUs,On-demand,Spot,Name\nAWS,H100 (80 GB),1e300,1,,a\nAWS,H100 (80 GB),8,%s,,b\n" % (
        b"9" * 400)
    parsed = fsdl.parse(payload(body), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(1, "implausible_value"), (2, "implausible_value")]
