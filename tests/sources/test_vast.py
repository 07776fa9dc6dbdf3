"""Vast.ai source: hand-worked medians over fixture offers, the whole-offer/slice/spot traps,
and fetch faults through the shared session with a fake transport (never the network)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import requests

from sources import vast
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import Payload, SourceError
from tests.sources.fakes import FakeAdapter, session_with

FIXTURE = Path(__file__).parents[1] / "fixtures" / "vast" / "bundles.json"
DAY = date(2026, 6, 2)


def payload(body: bytes) -> Payload:
    return Payload(source="vast", name="bundles.json", body=body, url=vast.URL, provider="vast")


def rows_by(parsed, instance_type: str, pricing: str) -> dict:
    frame = parsed.rows.filter(
        (parsed.rows["instance_type"] == instance_type) & (parsed.rows["pricing"] == pricing)
    )
    assert frame.height == 1, f"expected one {pricing} row for {instance_type}"
    return frame.row(0, named=True)


def test_median_lowest_and_spot_of_three_h100_offers():
    parsed = vast.parse(payload(FIXTURE.read_bytes()), DAY)
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    # asks 16.00, 21.00, 18.40 USD/h for the whole 8-GPU offer -> median 18.40, lowest 16.00
    median = rows_by(parsed, "8x H100 SXM 80GB median", "on_demand")
    assert median["usd_per_instance_hour"] == pytest.approx(18.40)
    assert median["gpus_per_instance"] == 8.0  # dph_total is per offer, not per GPU
    assert median["gpu_name"] == "H100 SXM" and median["region"] == "global"
    assert "3 offers" in median["source_ref"] and "incl. 50 GB disk" in median["source_ref"]
    lowest = rows_by(parsed, "8x H100 SXM 80GB lowest", "on_demand")
    assert lowest["usd_per_instance_hour"] == pytest.approx(16.00)
    assert lowest["source_row"] == 1  # offer 101 is the cheapest
    # min_bid 12.0, 14.0 and 0 (no bid): median of the two real bids, plus the storage share
    # dph_total - dph_base = 50 GB * 0.2667 USD/GB/month / 720 h = 0.018519 USD/h
    spot = rows_by(parsed, "8x H100 SXM 80GB median", "spot")
    assert spot["usd_per_instance_hour"] == pytest.approx(13.0 + 50 * 0.26666666666666666 / 720)
    assert "2 of 3 offers" in spot["source_ref"]


def test_slice_of_a_host_is_still_whole_gpus_and_memory_splits_groups():
    parsed = vast.parse(payload(FIXTURE.read_bytes()), DAY)
    # offer 105 has gpu_frac 0.125 (1 of the host's 8 GPUs): still one whole GPU
    a100_40 = rows_by(parsed, "1x A100 SXM4 40GB median", "on_demand")
    assert a100_40["gpus_per_instance"] == 1.0
    assert a100_40["usd_per_instance_hour"] == pytest.approx((0.70 + 0.80) / 2)
    # 39936 and 40960 MB are one class; 81920 MB (the 80 GB card) is another
    assert rows_by(parsed, "1x A100 SXM4 80GB median", "on_demand")["usd_per_instance_hour"] == pytest.approx(
        1.20
    )
    # min_bid 0 everywhere in the 40 GB group: no spot row rather than a free GPU
    assert parsed.rows.filter(
        (parsed.rows["instance_type"] == "1x A100 SXM4 40GB median") & (parsed.rows["pricing"] == "spot")
    ).is_empty()


def test_bad_offers_become_rejects_naming_the_offer():
    parsed = vast.parse(payload(FIXTURE.read_bytes()), DAY)
    rules = {r.source_row: r.rule for r in parsed.rejects}
    assert rules == {7: "vast_bad_num_gpus", 8: "vast_unverified", 9: "vast_bad_price"}
    assert all("id 10" in r.detail for r in parsed.rejects)
    assert "RTX 4090" not in parsed.rows["gpu_name"].to_list()


@pytest.mark.parametrize(
    "body, message",
    [
        (b'{"offers": [{"gpu_name": "H100 SXM", "num_gpus": 8, "dph_total": 1', "not JSON"),
        (b'{"results": []}', "no 'offers' list"),
        (b'{"offers": []}', "empty offer list"),
        (b'{"offers": [{"gpu_name": "H100 SXM", "num_gpus": 8, "price_total": 16.0}]}', "'dph_total'"),
    ],
)
def test_unusable_payload_raises_source_error(body, message):
    with pytest.raises(SourceError, match=message):
        vast.parse(payload(body), DAY)


def test_fetch_posts_the_query_and_keeps_exact_bytes():
    body = FIXTURE.read_bytes()
    adapter = FakeAdapter((200, body))
    payloads = vast.fetch(session_with(adapter), DAY)
    assert [p.body for p in payloads] == [body]
    sent = adapter.requests[0]
    assert sent.method == "POST" and sent.url == vast.URL
    query = json.loads(sent.body)
    assert query["rentable"] == {"eq": True} and query["verified"] == {"eq": True}
    assert "H100 SXM" in query["gpu_name"]["in"] and query["allocated_storage"] == vast.DISK_GB


def test_fetch_http_500_then_success():
    # The fake transport replaces urllib3 (and its retries): the first night fails loudly,
    # the next call gets the data; no partial payload is returned in between.
    body = FIXTURE.read_bytes()
    adapter = FakeAdapter((500, b"upstream error"), (200, body))
    session = session_with(adapter)
    with pytest.raises(SourceError, match="HTTP 500"):
        vast.fetch(session, DAY)
    assert vast.fetch(session, DAY)[0].body == body
    assert len(adapter.requests) == 2


def test_fetch_timeout_is_a_source_error():
    adapter = FakeAdapter(requests.ReadTimeout("read timed out"))
    with pytest.raises(SourceError, match="timed out|did not answer"):
        vast.fetch(session_with(adapter), DAY)


def test_fetch_truncated_body_is_a_source_error():
    body = FIXTURE.read_bytes()
    adapter = FakeAdapter((200, body[:100], {"Content-Length": str(len(body))}))
    with pytest.raises(SourceError, match="truncated"):
        vast.fetch(session_with(adapter), DAY)


def test_spec():
    assert vast.SPEC.kind == "prices" and vast.SPEC.key_env is None and vast.SPEC.live


def offers_with(*changes: dict) -> bytes:
    offers = json.loads(FIXTURE.read_bytes())["offers"]
    return json.dumps({"offers": [offer | change for offer, change in zip(offers, changes, strict=False)]
                       + offers[len(changes):]}).encode()


def test_an_offer_priced_1e308_is_one_reject_not_a_refused_file():
    # it once raised OverflowError and refused the whole payload
    parsed = vast.parse(payload(offers_with({}, {"dph_total": 1e308})), DAY)
    assert {r.source_row: r.rule for r in parsed.rejects}[2] == "implausible_value"
    # the two other H100 offers still make their median: 16.00 and 18.40
    assert rows_by(parsed, "8x H100 SXM 80GB median", "on_demand")["usd_per_instance_hour"] == pytest.approx(17.2)


@pytest.mark.parametrize("change, rule", [
    ({"num_gpus": 10**6}, "implausible_value"),
    ({"num_gpus": [8]}, "vast_bad_num_gpus"),
    ({"dph_total": float("nan")}, "vast_bad_price"),
    ({"dph_total": 10**400}, "implausible_value"),
])
def test_hostile_offer_values_are_one_named_reject(change, rule):
    parsed = vast.parse(payload(offers_with(change)), DAY)
    assert {r.source_row: r.rule for r in parsed.rejects}[1] == rule


def test_helper_figures_that_are_not_numbers_count_as_absent():
    parsed = vast.parse(payload(offers_with({"min_bid": float("inf"), "gpu_ram": "80 GB", "dph_base": None})), DAY)
    assert 1 not in {r.source_row for r in parsed.rejects}
    # without a memory figure the offer is its own class, labelled without GB
    alone = rows_by(parsed, "8x H100 SXM median", "on_demand")
    assert (alone["usd_per_instance_hour"], alone["gpu_memory_gb"]) == (16.0, None)


def test_price_statistic_and_memory_per_gpu():
    parsed = vast.parse(payload(FIXTURE.read_bytes()), DAY)
    got = {(r["instance_type"], r["pricing"]): (r["price_statistic"], r["gpu_memory_gb"])
           for r in parsed.rows.iter_rows(named=True)}
    # gpu_ram is MB per GPU: 81559 / 1024 = 79.6 GB for the H100 SXM offers
    assert got[("8x H100 SXM 80GB median", "on_demand")] == ("median", pytest.approx(81559 / 1024))
    assert got[("8x H100 SXM 80GB lowest", "on_demand")][0] == "lowest"
    assert got[("8x H100 SXM 80GB median", "spot")][0] == "auction_floor"  # the min_bid rows
    assert got[("1x A100 SXM4 40GB median", "on_demand")][1] == pytest.approx(40.0)
    assert set(parsed.rows["underlying_provider"].to_list()) == {None}
