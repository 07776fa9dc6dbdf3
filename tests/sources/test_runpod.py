"""RunPod source: per-GPU prices times GPU count, secure vs community, spot, missing key,
and fetch faults through the shared session with a fake transport (never the network)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import requests

from sources import runpod
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import MissingKey, Payload, SourceError
from tests.sources.fakes import FakeAdapter, session_with

FIXTURE = Path(__file__).parents[1] / "fixtures" / "runpod" / "gpu_types.json"
DAY = date(2026, 6, 2)


def payload(body: bytes) -> Payload:
    return Payload(source="runpod", name="gpu_types.json", body=body, url=runpod.URL, provider="runpod")


def price(parsed, instance_type: str, pricing: str = "on_demand") -> float:
    frame = parsed.rows.filter(
        (parsed.rows["instance_type"] == instance_type) & (parsed.rows["pricing"] == pricing)
    )
    assert frame.height == 1, f"expected one {pricing} row for {instance_type}"
    return frame["usd_per_instance_hour"][0]


def test_per_gpu_price_times_count():
    parsed = runpod.parse(payload(FIXTURE.read_bytes()), DAY)
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    # securePrice 2.69 USD per GPU-hour: an 8-GPU pod costs 8 x 2.69 = 21.52 USD/h
    assert price(parsed, "8x H100 80GB HBM3 SECURE") == pytest.approx(21.52)
    assert price(parsed, "1x H100 80GB HBM3 SECURE") == pytest.approx(2.69)
    assert price(parsed, "8x H100 80GB HBM3 COMMUNITY") == pytest.approx(8 * 2.39)
    row = parsed.rows.filter(parsed.rows["instance_type"] == "8x H100 80GB HBM3 SECURE").row(0, named=True)
    assert row["gpus_per_instance"] == 8.0 and row["gpu_name"] == "NVIDIA H100 80GB HBM3"
    assert row["region"] == "global" and row["provider"] == "runpod" and row["source_row"] == 1


def test_spot_prices_and_zero_means_not_offered():
    parsed = runpod.parse(payload(FIXTURE.read_bytes()), DAY)
    assert price(parsed, "4x H100 80GB HBM3 SECURE", "spot") == pytest.approx(4 * 1.75)
    # communitySpotPrice 0 is "no spot market", not a free GPU
    spot = parsed.rows.filter(parsed.rows["pricing"] == "spot")
    assert "1x H100 80GB HBM3 COMMUNITY" not in spot["instance_type"].to_list()


def test_shapes_follow_max_gpu_count_and_cloud_flags():
    parsed = runpod.parse(payload(FIXTURE.read_bytes()), DAY)
    types = set(parsed.rows["instance_type"].to_list())
    # maxGpuCount 10: the common shapes plus the maximum
    assert {f"{n}x GeForce RTX 4090 COMMUNITY" for n in (1, 2, 4, 8, 10)} <= types
    assert price(parsed, "10x GeForce RTX 4090 COMMUNITY") == pytest.approx(3.4)
    # communityCloud false: communityPrice 1.19 is ignored
    assert not any(t.startswith("1x A100-SXM4-80GB COMMUNITY") for t in types)
    assert runpod.shapes(3) == [1, 2, 3]


def test_unpriced_type_is_a_reject():
    parsed = runpod.parse(payload(FIXTURE.read_bytes()), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(5, "runpod_no_price")]
    assert "NVIDIA B200" in parsed.rejects[0].detail


@pytest.mark.parametrize(
    "body, message",
    [
        (FIXTURE.read_bytes()[:300], "not JSON"),
        (b'{"data": {"gpuTypes": []}}', "empty gpuTypes"),
        (b'{"data": null, "errors": [{"message": "Unauthorized"}]}', "Unauthorized"),
        (
            json.dumps(
                {
                    "data": {
                        "gpuTypes": [
                            {
                                "id": "NVIDIA H100 80GB HBM3",
                                "maxGpuCount": 8,
                                "securePriceUsd": 2.69,
                                "communityPrice": 2.39,
                            }
                        ]
                    }
                }
            ).encode(),
            "'securePrice'",
        ),
    ],
)
def test_unusable_payload_raises_source_error(body, message):
    with pytest.raises(SourceError, match=message):
        runpod.parse(payload(body), DAY)


def test_missing_key_skips_without_network(monkeypatch):
    monkeypatch.delenv("RUNPOD_API_KEY", raising=False)
    adapter = FakeAdapter((200, b"{}"))
    with pytest.raises(MissingKey, match="set RUNPOD_API_KEY to enable"):
        runpod.fetch(session_with(adapter), DAY)
    assert adapter.requests == []


def test_fetch_sends_key_in_header_not_url(monkeypatch):
    monkeypatch.setenv("RUNPOD_API_KEY", "rp-test-key")
    body = FIXTURE.read_bytes()
    adapter = FakeAdapter((200, body))
    [got] = runpod.fetch(session_with(adapter), DAY)
    sent = adapter.requests[0]
    assert got.body == body and got.url == runpod.URL
    assert sent.headers["Authorization"] == "Bearer rp-test-key" and "rp-test-key" not in sent.url
    assert "gpuTypes" in json.loads(sent.body)["query"]


def test_fetch_http_500_then_success(monkeypatch):
    monkeypatch.setenv("RUNPOD_API_KEY", "rp-test-key")
    body = FIXTURE.read_bytes()
    adapter = FakeAdapter((500, b"oops"), (200, body))
    session = session_with(adapter)
    with pytest.raises(SourceError, match="HTTP 500"):
        runpod.fetch(session, DAY)
    assert runpod.fetch(session, DAY)[0].body == body
    assert len(adapter.requests) == 2


def test_fetch_timeout_and_truncation(monkeypatch):
    monkeypatch.setenv("RUNPOD_API_KEY", "rp-test-key")
    with pytest.raises(SourceError, match="timed out|did not answer"):
        runpod.fetch(session_with(FakeAdapter(requests.ReadTimeout("timed out"))), DAY)
    body = FIXTURE.read_bytes()
    cut = FakeAdapter((200, body[:50], {"Content-Length": str(len(body))}))
    with pytest.raises(SourceError, match="truncated"):
        runpod.fetch(session_with(cut), DAY)


def test_spec():
    assert runpod.SPEC.key_env == "RUNPOD_API_KEY" and runpod.SPEC.kind == "prices"


def types_with(change: dict) -> bytes:
    data = json.loads(FIXTURE.read_bytes())
    data["data"]["gpuTypes"][0] |= change
    return json.dumps(data).encode()


def test_memory_per_gpu_comes_from_memory_in_gb():
    parsed = runpod.parse(payload(FIXTURE.read_bytes()), DAY)
    memory = dict(zip(parsed.rows["gpu_name"], parsed.rows["gpu_memory_gb"], strict=False))
    assert memory["NVIDIA H100 80GB HBM3"] == 80.0 and memory["AMD Instinct MI300X OAM"] == 192.0
    assert set(parsed.rows["price_statistic"]) == {"list"}


@pytest.mark.parametrize("change, rule", [
    ({"maxGpuCount": 5000}, "implausible_value"),
    ({"securePrice": float("nan")}, "non_finite_value"),
    ({"securePrice": 1e308}, "implausible_value"),  # x 8 GPUs is not a price
    ({"id": ["NVIDIA H100"]}, "runpod_missing_id"),
])
def test_hostile_values_are_one_named_reject(change, rule):
    parsed = runpod.parse(payload(types_with(change)), DAY)
    assert (1, rule) in [(r.source_row, r.rule) for r in parsed.rejects]
    assert "NVIDIA GeForce RTX 4090" in parsed.rows["gpu_name"].to_list()


def test_a_junk_memory_figure_is_unknown_not_a_reject():
    parsed = runpod.parse(payload(types_with({"memoryInGb": "eighty"})), DAY)
    assert [r.source_row for r in parsed.rejects] == [5]
    assert parsed.rows.filter(parsed.rows["source_row"] == 1)["gpu_memory_gb"].null_count() > 0
