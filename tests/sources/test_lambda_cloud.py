"""Lambda Cloud source: cents per instance-hour, GPU count from the name, one global price,
missing key, and fetch faults through the shared session with a fake transport."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import requests

from sources import lambda_cloud
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import MissingKey, Payload, SourceError
from tests.sources.fakes import FakeAdapter, session_with

FIXTURE = Path(__file__).parents[1] / "fixtures" / "lambda_cloud" / "instance_types.json"
DAY = date(2026, 6, 2)


def payload(body: bytes) -> Payload:
    return Payload(
        source="lambda_cloud", name="instance_types.json", body=body, url=lambda_cloud.URL, provider="lambda"
    )


def row(parsed, instance_type: str) -> dict:
    frame = parsed.rows.filter(parsed.rows["instance_type"] == instance_type)
    assert frame.height == 1
    return frame.row(0, named=True)


def test_cents_per_instance_hour_for_eight_gpus():
    parsed = lambda_cloud.parse(payload(FIXTURE.read_bytes()), DAY)
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    h100 = row(parsed, "gpu_8x_h100_sxm5")
    # 2490 cents for the whole 8-GPU instance = 24.90 USD/h (3.1125 per GPU-hour)
    assert h100["usd_per_instance_hour"] == pytest.approx(24.90)
    assert h100["gpus_per_instance"] == 8.0
    assert h100["gpu_name"] == "H100 (80 GB SXM5)"
    assert (h100["provider"], h100["region"], h100["pricing"]) == ("lambda", "global", "on_demand")


def test_names_and_regions():
    parsed = lambda_cloud.parse(payload(FIXTURE.read_bytes()), DAY)
    # the special-case name keeps its memory/form-factor suffix out of the count
    assert row(parsed, "gpu_8x_a100_80gb_sxm4")["gpus_per_instance"] == 8.0
    # no gpu_description: the model part of the name is the spelling
    assert row(parsed, "gpu_1x_a100_sxm4")["gpu_name"] == "a100_sxm4"
    # capacity in two regions (or none) is not two prices: one global row each
    assert parsed.rows.filter(parsed.rows["instance_type"] == "gpu_1x_gh200").height == 1
    assert row(parsed, "gpu_8x_a100_80gb_sxm4")["usd_per_instance_hour"] == pytest.approx(14.32)
    assert "cpu_4x_general" not in parsed.rows["instance_type"].to_list()
    assert set(parsed.rows["pricing"].to_list()) == {"on_demand"}  # Lambda has no spot


def test_count_disagreement_is_rejected_not_guessed():
    parsed = lambda_cloud.parse(payload(FIXTURE.read_bytes()), DAY)
    [reject] = parsed.rejects
    assert reject.rule == "lambda_gpu_count_mismatch" and reject.source_row == 5
    assert "gpu_2x_h100_sxm5" in reject.detail


@pytest.mark.parametrize(
    "body, message",
    [
        (FIXTURE.read_bytes()[:-40], "not JSON"),
        (b'{"data": {}}', "empty instance type list"),
        (b'{"error": {"code": "global/invalid-api-key", "message": "API key was invalid"}}', "no 'data'"),
        (
            json.dumps(
                {"data": {"gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10", "price_usd": 1.29}}}}
            ).encode(),
            "'price_cents_per_hour'",
        ),
    ],
)
def test_unusable_payload_raises_source_error(body, message):
    with pytest.raises(SourceError, match=message):
        lambda_cloud.parse(payload(body), DAY)


def test_missing_key(monkeypatch):
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)
    adapter = FakeAdapter((200, b"{}"))
    with pytest.raises(MissingKey, match="LAMBDA_API_KEY"):
        lambda_cloud.fetch(session_with(adapter), DAY)
    assert adapter.requests == []


def test_fetch_bearer_and_faults(monkeypatch):
    monkeypatch.setenv("LAMBDA_API_KEY", "lambda-test-key")
    body = FIXTURE.read_bytes()
    adapter = FakeAdapter((500, b"{}"), (200, body))
    session = session_with(adapter)
    with pytest.raises(SourceError, match="HTTP 500"):
        lambda_cloud.fetch(session, DAY)
    [got] = lambda_cloud.fetch(session, DAY)
    assert got.body == body and got.provider == "lambda"
    assert adapter.requests[-1].headers["Authorization"] == "Bearer lambda-test-key"
    with pytest.raises(SourceError, match="timed out|did not answer"):
        lambda_cloud.fetch(session_with(FakeAdapter(requests.ReadTimeout("timed out"))), DAY)
    cut = FakeAdapter((200, body[:10], {"Content-Length": str(len(body))}))
    with pytest.raises(SourceError, match="truncated"):
        lambda_cloud.fetch(session_with(cut), DAY)


def test_memory_per_gpu_from_the_description_or_the_name():
    parsed = lambda_cloud.parse(payload(FIXTURE.read_bytes()), DAY)
    assert row(parsed, "gpu_8x_h100_sxm5")["gpu_memory_gb"] == 80.0  # "H100 (80 GB SXM5)"
    assert row(parsed, "gpu_1x_gh200")["gpu_memory_gb"] == 96.0
    assert row(parsed, "gpu_1x_a100_sxm4")["gpu_memory_gb"] == 40.0  # no gpu_description: "1x A100 (40 GB SXM4)"


@pytest.mark.parametrize("change, rule", [
    ({"price_cents_per_hour": float("inf")}, "non_finite_value"),
    ({"price_cents_per_hour": 10**400}, "implausible_value"),
    ({"name": ["gpu_8x_h100_sxm5"]}, "wrong_type"),
    ({"name": "gpu_4096x_h100_sxm5", "specs": {}}, "implausible_value"),
])
def test_hostile_values_are_one_named_reject(change, rule):
    data = json.loads(FIXTURE.read_bytes())
    data["data"]["gpu_8x_h100_sxm5"]["instance_type"] |= change
    parsed = lambda_cloud.parse(payload(json.dumps(data).encode()), DAY)
    assert (1, rule) in [(r.source_row, r.rule) for r in parsed.rejects]
    assert "gpu_8x_a100_80gb_sxm4" in parsed.rows["instance_type"].to_list()
