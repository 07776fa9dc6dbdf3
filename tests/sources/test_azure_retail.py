"""Azure Retail Prices source: three realistic pages, every §1.1 trap, pagination and faults."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import requests

from sources import azure_retail
from sources.kit.spec import Payload, SourceError
from tests.sources.fakes import fake_session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "azure_retail"
DAY = date(2026, 3, 1)
PAGES = [FIXTURES / f"page-{n:04d}.json" for n in (1, 2, 3)]


def page(n: int, body: bytes | None = None) -> Payload:
    raw = PAGES[n - 1].read_bytes() if body is None else body
    return Payload("azure_retail", f"page-{n:04d}.json", raw, f"https://prices.azure.com/page{n}")


def table(parsed) -> set[tuple]:
    return {
        (r["instance_type"], r["region"], r["pricing"], r["gpu_name"], round(r["gpus_per_instance"], 6),
         round(r["usd_per_instance_hour"], 6), r["source_row"])
        for r in parsed.rows.to_dicts()
    }


def items_page(*items: dict) -> bytes:
    base = json.loads(PAGES[0].read_bytes())
    return json.dumps({**base, "Items": list(items), "Count": len(items), "NextPageLink": None}).encode()


def first_item(**changes) -> dict:
    return {**json.loads(PAGES[0].read_bytes())["Items"][0], **changes}


# --- parse: hand-computed rows ----------------------------------------------------------------

def test_page_one_consumption_spot_and_reservations():
    parsed = azure_retail.parse(page(1), DAY)
    assert table(parsed) == {
        ("Standard_ND96isr_H100_v5", "eastus", "on_demand", "H100", 8.0, 98.32, 1),
        ("Standard_ND96isr_H100_v5", "eastus", "spot", "H100", 8.0, 39.328, 3),
        # reservation items carry the total upfront price for the term
        ("Standard_ND96isr_H100_v5", "eastus", "reserved_1y", "H100", 8.0, 62.0, 5),  # 543120 / 8760
        ("Standard_ND96isr_H100_v5", "eastus", "reserved_3y", "H100", 8.0, 43.0, 6),  # 1130040 / 26280
        ("Standard_NV6ads_A10_v5", "eastus", "on_demand", "A10", round(1 / 6, 6), 0.454, 8),
        ("Standard_NC40ads_H100_v5", "eastus", "on_demand", "H100 NVL", 1.0, 6.98, 9),
    }
    # Windows (2), Low Priority (4) and DevTest (7) meters are out of scope, not errors
    assert parsed.rejects == []
    row = parsed.rows.row(0, named=True)
    assert (row["provider"], row["zone"], row["currency"], row["source"], row["observed_at"]) == (
        "azure", None, "USD", "azure_retail", DAY)
    assert row["source_ref"] == "https://prices.azure.com/page1#effectiveStartDate=2025-04-01T00:00:00Z"


def test_page_two_drops_placeholders_and_cloud_services_and_rejects_unknown_gpu_skus():
    parsed = azure_retail.parse(page(2), DAY)
    assert table(parsed) == {
        ("Standard_NC24ads_A100_v4", "eastus", "on_demand", "A100 80GB", 1.0, 3.673, 1),
        ("Standard_NC24ads_A100_v4", "eastus", "spot", "A100 80GB", 1.0, 0.444433, 2),
        ("Standard_NC64as_T4_v3", "westus2", "on_demand", "T4", 4.0, 4.352, 6),
    }
    assert [(r.rule, r.source_row, r.detail) for r in parsed.rejects] == [
        ("unknown_sku", 5, "item 5: no GPU known for Standard_NCC40ads_H100_v5")
    ]


def test_page_three_flagships_and_a_three_year_reservation():
    assert table(azure_retail.parse(page(3), DAY)) == {
        ("Standard_ND96isr_H200_v5", "eastus2", "on_demand", "H200", 8.0, 84.8, 1),
        ("Standard_ND96is_MI300X_v5", "eastus", "on_demand", "MI300X", 8.0, 48.0, 2),
        ("Standard_ND96amsr_A100_v4", "eastus", "reserved_3y", "A100 80GB", 8.0, 20.0, 3),  # 525600 / 26280
    }


@pytest.mark.parametrize(("sku", "gpu", "count"), [
    ("Standard_ND96asr_v4", "A100 40GB", 8), ("Standard_NC48ads_A100_v4", "A100 80GB", 2),
    ("Standard_NC96ads_A100_v4", "A100 80GB", 4), ("Standard_NC80adis_H100_v5", "H100 NVL", 2),
    ("Standard_ND128isr_GB200_v6", "GB200", 4), ("Standard_NV36ads_A10_v5", "A10", 1),
    ("Standard_NV12ads_A10_v5", "A10", 1 / 3), ("Standard_NV18ads_A10_v5", "A10", 1 / 2),
    ("Standard_NC4as_T4_v3", "T4", 1), ("Standard_NC24rs_v3", "V100", 4),
])
def test_sku_table(sku, gpu, count):
    assert azure_retail.gpu_for(sku) == (gpu, pytest.approx(count))


def test_unknown_size_of_a_known_family_is_not_extrapolated():
    assert azure_retail.gpu_for("Standard_NC160ads_H100_v5") is None


def test_item_level_problems_become_named_rejects():
    body = items_page(
        first_item(retailPrice="abc"),
        first_item(type="Reservation", reservationTerm="5 Years", retailPrice=1.0),
        first_item(unitOfMeasure="1/Month"),
        first_item(armRegionName="WestUS3"),
        first_item(armRegionName="westus3", retailPrice=99.0),
        {k: v for k, v in first_item().items() if k != "meterName"},
    )
    parsed = azure_retail.parse(page(1, body), DAY)
    assert [(r.rule, r.source_row) for r in parsed.rejects] == [
        ("unparseable_price", 1), ("unknown_reservation_term", 2), ("unexpected_unit", 3),
        ("duplicate_meter", 5), ("missing_field", 6),
    ]
    assert parsed.rejects[0].detail == "item 1: retailPrice 'abc' is not a number"
    # region names differ in case between Azure APIs; the row keeps the lower-case id
    assert parsed.rows.select("region", "usd_per_instance_hour").rows() == [("westus3", 98.32)]


# --- parse: whole-payload faults --------------------------------------------------------------

def test_truncated_json_raises():
    body = PAGES[0].read_bytes()
    with pytest.raises(SourceError, match=r"\[azure_retail\] page-0001.json: not valid JSON \(truncated\?\)"):
        azure_retail.parse(page(1, body[: len(body) // 2]), DAY)


def test_renamed_field_raises_naming_it():
    body = PAGES[1].read_bytes().replace(b'"armSkuName"', b'"armSku"')
    with pytest.raises(SourceError, match="field 'armSkuName' missing from every item"):
        azure_retail.parse(page(2, body), DAY)


def test_empty_body_and_missing_envelope_raise():
    with pytest.raises(SourceError, match="empty body"):
        azure_retail.parse(page(1, b""), DAY)
    with pytest.raises(SourceError, match="no 'Items' list"):
        azure_retail.parse(page(1, b'{"value": []}'), DAY)


# --- fetch ------------------------------------------------------------------------------------

def next_links() -> list[str]:
    return [json.loads(p.read_bytes())["NextPageLink"] for p in PAGES[:2]]


def routes(**overrides) -> dict:
    bodies = [p.read_bytes() for p in PAGES]
    urls = [azure_retail.first_url(), *next_links()]
    found = {url: [body] for url, body in zip(urls, bodies, strict=True)}
    for index, replies in overrides.items():
        found[urls[int(index[1:])]] = replies
    return found


def test_fetch_follows_next_page_link_and_keeps_each_page_raw():
    session, fake = fake_session(routes())
    got = azure_retail.fetch(session, DAY)
    assert [p.name for p in got] == ["page-0001.json", "page-0002.json", "page-0003.json"]
    assert [p.body for p in got] == [p.read_bytes() for p in PAGES]
    assert [p.url for p in got] == [azure_retail.first_url(), *next_links()]
    assert len(fake.calls) == 3
    assert "$filter=serviceName eq 'Virtual Machines'" in fake.calls[0].replace("%20", " ")


def test_fetch_retries_a_500_on_a_middle_page():
    session, fake = fake_session(routes(p1=[(500, b"busy", {}), PAGES[1].read_bytes()]))
    assert len(azure_retail.fetch(session, DAY)) == 3
    assert len(fake.calls) == 4


def test_fetch_timeout_raises_a_clear_source_error():
    session, _ = fake_session(routes(p1=[requests.ReadTimeout("read timed out after 60 s")]))
    with pytest.raises(SourceError, match=r"\[azure_retail\] .*prices.azure.com.*(timed out|did not answer)"):
        azure_retail.fetch(session, DAY)


def test_fetch_truncated_page_raises():
    body = PAGES[0].read_bytes()
    session, _ = fake_session({azure_retail.first_url(): [body[:200]]})
    with pytest.raises(SourceError, match="page-0001.json: not valid JSON"):
        azure_retail.fetch(session, DAY)


def test_fetch_caps_the_number_of_pages(monkeypatch):
    monkeypatch.setattr(azure_retail, "MAX_PAGES", 2)
    session, _ = fake_session(routes())
    with pytest.raises(SourceError, match="more than 2 pages"):
        azure_retail.fetch(session, DAY)


def test_fetch_refuses_a_next_link_to_another_host():
    body = PAGES[0].read_bytes().replace(b"https://prices.azure.com:443", b"https://evil.example")
    session, _ = fake_session({azure_retail.first_url(): [body]})
    with pytest.raises(SourceError, match="points off prices.azure.com"):
        azure_retail.fetch(session, DAY)


def test_memory_per_gpu_where_the_sku_or_product_names_it():
    parsed = azure_retail.parse(page(2), DAY)
    memory = dict(zip(parsed.rows["instance_type"], parsed.rows["gpu_memory_gb"], strict=False))
    assert memory == {"Standard_NC24ads_A100_v4": 80.0, "Standard_NC64as_T4_v3": None}


def test_hostile_items_are_one_named_reject():
    body = items_page(
        first_item(retailPrice=10**400),
        first_item(retailPrice=float("nan")),
        first_item(armSkuName=["Standard_ND96isr_H100_v5"]),
        "not an item",
        first_item(armRegionName="westus3", retailPrice=1e308),
        first_item(armRegionName="westus2"),
    )
    parsed = azure_retail.parse(page(1, body), DAY)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [
        (1, "implausible_value"), (2, "non_finite_value"), (3, "wrong_type"), (4, "not_a_mapping"),
        (5, "implausible_value"),
    ]
    assert parsed.rows["region"].to_list() == ["westus2"]
