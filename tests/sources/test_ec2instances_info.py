"""ec2instances.info instances.json: per-region Linux on-demand, spot average and Standard
no-upfront reservations for GPU records; GPU-less records give no rows."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sources import ec2instances_info
from sources.bundled.catalog import load_catalog
from sources.kit import registry
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import Payload, SourceError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ec2instances_info" / "instances.json"
SHARED = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "prices"
    / "aws_ec2instances-info_instance_record_x2iedn.32xlarge.json"
)
DAY = date(2026, 6, 2)


def payload(body: bytes, name: str = "instances.json") -> Payload:
    return Payload(source="ec2instances_info", name=name, body=body, url=f"/tmp/{name}")


def records() -> list[dict]:
    return json.loads(FIXTURE.read_text())


def prices(parsed) -> dict[tuple[str, str, str], float]:
    return {
        (r["instance_type"], r["region"], r["pricing"]): r["usd_per_instance_hour"]
        for r in parsed.rows.iter_rows(named=True)
    }


def test_linux_prices_per_region_for_gpu_records():
    parsed = ec2instances_info.parse(payload(FIXTURE.read_bytes()), DAY)
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    assert not parsed.rejects
    assert prices(parsed) == {
        ("p5.48xlarge", "us-east-1", "on_demand"): 55.04,
        ("p5.48xlarge", "us-east-1", "spot"): 28.1936,  # spot_avg "28.193600"
        ("p5.48xlarge", "us-east-1", "reserved_1y"): 38.528,  # yrTerm1Standard.noUpfront
        ("p5.48xlarge", "us-east-1", "reserved_3y"): 26.4192,  # yrTerm3Standard.noUpfront
        ("p5.48xlarge", "eu-north-1", "on_demand"): 57.80,  # no spot, no reservations there
        ("p4de.24xlarge", "us-east-1", "on_demand"): 27.44705,
        ("p4de.24xlarge", "us-east-1", "reserved_1y"): 19.2129,  # empty spot_avg: no row
    }
    # mswin prices and a region with no linux entry (us-gov-west-1) are ignored; m5.large has GPU 0
    p5 = parsed.rows.filter(parsed.rows["instance_type"] == "p5.48xlarge").row(0, named=True)
    assert (p5["provider"], p5["gpu_name"], p5["gpus_per_instance"]) == ("aws", "NVIDIA H100", 8.0)
    assert (p5["zone"], p5["currency"], p5["source"], p5["source_row"]) == (None, "USD", "ec2instances_info", 1)
    assert (p5["source_ref"], p5["observed_at"]) == ("instances.json", DAY)


def test_ambiguous_models_carry_their_memory_and_resolve():
    parsed = ec2instances_info.parse(payload(FIXTURE.read_bytes()), DAY)
    names = dict(zip(parsed.rows["instance_type"], parsed.rows["gpu_name"], strict=True))
    # "NVIDIA A100" covers p4d (40 GB) and p4de (80 GB): 640 GB / 8 GPUs = 80 GB each
    assert names == {"p5.48xlarge": "NVIDIA H100", "p4de.24xlarge": "NVIDIA A100 80GB"}
    table = load_catalog()["gpu_alias"]
    aliases = {a.strip().lower(): g for a, g in zip(table["alias"], table["gpu_id"], strict=True)}
    assert {n: aliases.get(n.lower()) for n in names.values()} == {
        "NVIDIA H100": "H100-SXM", "NVIDIA A100 80GB": "A100-SXM-80GB",
    }
    p4d = records()[1] | {"instance_type": "p4d.24xlarge", "GPU_memory": 320}
    assert ec2instances_info.parse(payload(json.dumps(p4d).encode()), DAY).rows["gpu_name"][0] == "NVIDIA A100 40GB"


def test_a_single_record_object_and_g6f_slices():
    g6f = {
        "instance_type": "g6f.large", "GPU": 1, "GPU_model": "NVIDIA L4", "GPU_memory": 3,
        "pricing": {"us-east-1": {"linux": {"ondemand": "0.2"}}},
    }
    parsed = ec2instances_info.parse(payload(json.dumps(g6f).encode()), DAY)
    # AWS reports one GPU for an eighth of an L4; the size table wins
    assert parsed.rows["gpus_per_instance"].to_list() == [0.125]
    assert parsed.rows["usd_per_instance_hour"].to_list() == [0.2]


def test_bad_prices_and_records_are_rejected():
    data = records()
    data[0]["pricing"]["us-east-1"]["linux"]["ondemand"] = "N/A"
    data[1]["GPU_model"] = None
    data.append({"instance_type": "p9.huge", "GPU": "lots", "pricing": {}})
    data.append({"instance_type": "g5.xlarge", "GPU": 1, "GPU_model": "NVIDIA A10G", "pricing": {}})
    parsed = ec2instances_info.parse(payload(json.dumps(data).encode()), DAY)
    got = [(r.source_row, r.rule) for r in parsed.rejects]
    assert got == [
        (1, "ec2_unparseable_price"),
        (2, "ec2_missing_gpu_model"),
        (4, "ec2_bad_gpu_count"),
        (5, "ec2_no_linux_price"),
    ]
    assert "us-east-1 on_demand: 'N/A'" in parsed.rejects[0].detail
    # the rest of p5 still loads: spot and reservations in us-east-1, eu-north-1 on-demand
    assert set(prices(parsed)) == {
        ("p5.48xlarge", "us-east-1", "spot"),
        ("p5.48xlarge", "us-east-1", "reserved_1y"),
        ("p5.48xlarge", "us-east-1", "reserved_3y"),
        ("p5.48xlarge", "eu-north-1", "on_demand"),
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>", "not JSON"),
        (b"[]", "empty instance list"),
        (b'"p5.48xlarge"', "expected a list"),
        (b'[{"GPU": 8, "pricing": {}}]', "'instance_type' missing"),
        (b'[{"instance_type": "p5.48xlarge", "GPU": 8}]', "'pricing' missing"),
    ],
)
def test_malformed_payloads_are_source_errors(body, message):
    with pytest.raises(SourceError, match=message):
        ec2instances_info.parse(payload(body), DAY)


def test_file_only_and_registered():
    assert registry.spec_for("ec2instances_info") is ec2instances_info.SPEC and not ec2instances_info.SPEC.live
    with pytest.raises(SourceError, match="ec2instances_info is file-only: use gpucalc ingest ec2instances_info"):
        ec2instances_info.fetch(None, DAY)


def test_the_real_shared_record_has_no_gpu_and_loads_zero_rows():
    if not SHARED.is_file():
        pytest.skip(f"{SHARED} not present")
    parsed = ec2instances_info.parse(payload(SHARED.read_bytes(), SHARED.name), DAY)
    assert parsed.rows.height == 0 and not parsed.rejects
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    # and through the registry, as `gpucalc ingest` calls it
    result, problem = registry.parse_one("ec2instances_info", payload(SHARED.read_bytes(), SHARED.name), DAY)
    assert result is not None and problem == ""


def test_memory_per_gpu_is_the_total_over_the_count():
    parsed = ec2instances_info.parse(payload(FIXTURE.read_bytes()), DAY)
    memory = dict(zip(parsed.rows["instance_type"], parsed.rows["gpu_memory_gb"], strict=False))
    assert memory == {"p5.48xlarge": 80.0, "p4de.24xlarge": 80.0}  # 640 GB / 8
    g6f = {"instance_type": "g6f.large", "GPU": 1, "GPU_model": "NVIDIA L4", "GPU_memory": 3,
           "pricing": {"us-east-1": {"linux": {"ondemand": "0.2"}}}}
    # an eighth of an L4 reports 3 GB: the card behind it has 3 / 0.125 = 24 GB
    assert ec2instances_info.parse(payload(json.dumps(g6f).encode()), DAY).rows["gpu_memory_gb"][0] == 24.0


@pytest.mark.parametrize("change, rule", [
    ({"GPU": 1e300}, "implausible_value"),
    ({"GPU": "NaN"}, "non_finite_value"),
    ({"GPU_model": ["NVIDIA H100"]}, "ec2_missing_gpu_model"),
    ({"pricing": {"us-east-1": {"linux": {"ondemand": "1e308"}}}}, "implausible_value"),
])
def test_hostile_values_are_one_named_reject(change, rule):
    data = records()
    data[0] |= change
    parsed = ec2instances_info.parse(payload(json.dumps(data).encode()), DAY)
    assert (1, rule) in [(r.source_row, r.rule) for r in parsed.rejects]
    assert "p4de.24xlarge" in parsed.rows["instance_type"].to_list()


def test_a_big_file_is_read_one_record_at_a_time():
    # 4,500 records: the reader decodes them one by one from a window, not as one structure
    data = records() * 1500
    parsed = ec2instances_info.parse(payload(json.dumps(data, indent=1).encode()), DAY)
    assert parsed.rows.height == 1500 * 7 and parsed.rows["source_row"].max() == 4499
