"""Azure Retail Prices API: official on-demand, Spot and reservation prices for GPU VMs, keyless.

`GET https://prices.azure.com/api/retail/prices` with an OData `$filter`; pages of 100 items
linked by `NextPageLink` (price_sources.md §1.1). Every page is kept as its own payload.
Prices are per VM-hour; GPU model and count come from the SKU name (`_azure_retail_skus`).
"""

from __future__ import annotations

import json
import math
import re
from datetime import date
from urllib.parse import quote, urlsplit

import polars as pl
import requests

from sources._azure_retail_skus import LOOKS_LIKE_GPU, gpu_for
from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec
from sources.contracts import PRICE_QUOTE, conform
from sources.http import get_bytes

NAME = "azure_retail"
API = "https://prices.azure.com/api/retail/prices"
# GPU series are NC, ND and NV; contains() on armSkuName is what public clients use, and the
# Windows / Low Priority / DevTest meters it also returns are dropped in `parse`.
GPU_FILTER = (
    "serviceName eq 'Virtual Machines' and (contains(armSkuName, 'Standard_NC') "
    "or contains(armSkuName, 'Standard_ND') or contains(armSkuName, 'Standard_NV'))"
)
MAX_PAGES = 200  # ~20,000 items; the GPU filter returns a few thousand
# A reservation item's price is the total paid upfront for the whole term, not hourly
# (price_sources.md §1.1, "Traps"); spread over 365-day years.
TERMS = {"1 Year": ("reserved_1y", 8760.0), "3 Years": ("reserved_3y", 26280.0)}
REQUIRED = ("armSkuName", "armRegionName", "retailPrice", "type", "productName", "skuName",
            "meterName", "unitOfMeasure", "currencyCode")
# SkyPilot's exclusion regex for meters that share serviceName 'Virtual Machines'.
NOT_LINUX_VM = re.compile(r" Win| Cloud Services| CloudServices")


def first_url() -> str:
    return API + "?$filter=" + quote(GPU_FILTER, safe="'(),")


def fetch(session: requests.Session, observed_at: date) -> list[Payload]:
    """Walk NextPageLink from the filtered first page; any failed page fails the fetch."""
    payloads: list[Payload] = []
    url: str | None = first_url()
    while url:
        if len(payloads) >= MAX_PAGES:
            raise SourceError(NAME, f"more than {MAX_PAGES} pages; next would be {url}")
        body = get_bytes(session, NAME, url)
        name = f"page-{len(payloads) + 1:04d}.json"
        payloads.append(Payload(NAME, name, body, url))
        url = _next_link(name, body)
    return payloads


def _next_link(name: str, body: bytes) -> str | None:
    page = _load(name, body)
    link = page.get("NextPageLink")
    if not link or not page["Items"]:  # an empty page ends the walk (as SkyPilot does)
        return None
    if urlsplit(link).hostname != "prices.azure.com":
        raise SourceError(NAME, f"{name}: NextPageLink points off prices.azure.com: {link}")
    return link


def _load(name: str, body: bytes) -> dict:
    if not body.strip():
        raise SourceError(NAME, f"{name}: empty body")
    try:
        page = json.loads(body)
    except ValueError as exc:
        raise SourceError(NAME, f"{name}: not valid JSON (truncated?): {exc}") from exc
    if not isinstance(page, dict) or not isinstance(page.get("Items"), list):
        raise SourceError(NAME, f"{name}: no 'Items' list in the response envelope")
    return page


def parse(payload: Payload, observed_at: date) -> Parsed:
    items = _load(payload.name, payload.body)["Items"]
    for key in REQUIRED:
        if items and all(key not in item for item in items):
            raise SourceError(NAME, f"{payload.name}: field '{key}' missing from every item")
    quotes: list[dict] = []
    rejects: list[Reject] = []
    seen: set[tuple[str, str, str]] = set()
    for row_no, item in enumerate(items, start=1):
        result = _item(row_no, item)
        if isinstance(result, Reject):
            rejects.append(result)
        elif result is not None:
            region, sku, gpu, count, usd, pricing = result
            if (region, sku, pricing) in seen:
                detail = f"item {row_no}: second {pricing} price for {sku} in {region}"
                rejects.append(Reject(NAME, row_no, "duplicate_meter", detail, item))
                continue
            seen.add((region, sku, pricing))
            quotes.append({
                "provider": "azure", "region": region, "zone": None, "instance_type": sku,
                "gpu_name": gpu, "gpus_per_instance": count, "usd_per_instance_hour": usd,
                "pricing": pricing, "currency": item["currencyCode"], "observed_at": observed_at,
                "source": NAME, "source_ref": _ref(payload.url, item), "source_row": row_no,
            })
    return Parsed(conform(pl.DataFrame(quotes, schema=PRICE_QUOTE), PRICE_QUOTE), rejects)


def _item(row_no: int, item: dict) -> tuple | Reject | None:
    """(region, sku, gpu, count, usd per VM-hour, pricing); None when out of scope."""
    missing = [key for key in REQUIRED if key not in item]
    if missing:
        return Reject(NAME, row_no, "missing_field", f"item {row_no}: no {', '.join(missing)}", item)
    sku, kind = str(item["armSkuName"] or ""), item["type"]
    names = f"{item['skuName']} {item['meterName']}"
    if (kind == "DevTestConsumption" or NOT_LINUX_VM.search(str(item["productName"]))
            or "Low Priority" in names or "Promo" in sku or not LOOKS_LIKE_GPU.match(sku)):
        return None  # Windows / Cloud Services / DevTest / Low Priority / Promo / CPU: not ours
    try:
        price = float(item["retailPrice"])
    except (TypeError, ValueError):
        return Reject(NAME, row_no, "unparseable_price",
                      f"item {row_no}: retailPrice {item['retailPrice']!r} is not a number", item)
    if price == 0:
        return None  # $0 placeholder meters exist (price_sources.md §1.1)
    if price < 0 or not math.isfinite(price):
        return Reject(NAME, row_no, "bad_price", f"item {row_no}: retailPrice {price}", item)
    found = gpu_for(sku)
    if found is None:
        return Reject(NAME, row_no, "unknown_sku", f"item {row_no}: no GPU known for {sku}", item)
    if item["unitOfMeasure"] != "1 Hour":
        return Reject(NAME, row_no, "unexpected_unit",
                      f"item {row_no}: unitOfMeasure {item['unitOfMeasure']!r}, expected '1 Hour'", item)
    region = str(item["armRegionName"] or "").lower()  # case differs between APIs (§1.1)
    if not region:
        return Reject(NAME, row_no, "missing_region", f"item {row_no}: armRegionName is empty", item)
    if kind == "Consumption":
        pricing = "spot" if " Spot" in names else "on_demand"
        return region, sku, *found, price, pricing
    if kind == "Reservation":
        term = item.get("reservationTerm")
        if term not in TERMS:
            return Reject(NAME, row_no, "unknown_reservation_term",
                          f"item {row_no}: reservationTerm {term!r}", item)
        pricing, hours = TERMS[term]
        return region, sku, *found, price / hours, pricing
    return Reject(NAME, row_no, "unknown_price_type", f"item {row_no}: type {kind!r}", item)


def _ref(url: str, item: dict) -> str:
    start = item.get("effectiveStartDate")
    return f"{url}#effectiveStartDate={start}" if start else url


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Azure Retail Prices API: GPU VM on-demand, Spot and 1y/3y reservations (per VM-hour)",
    key_env=None,
    fetch=fetch,
    parse=parse,
)
