"""Azure Retail Prices API: official on-demand, Spot and reservation prices for GPU VMs, keyless.

`GET https://prices.azure.com/api/retail/prices` with an OData `$filter`; pages of 100 items
linked by `NextPageLink` (price_sources.md §1.1). Every page is kept as its own payload.
Prices are per VM-hour; GPU model and count come from the SKU name (`sources/azure_retail/skus.py`), and
gpu_memory_gb from the "80GB" that name or the product name states (nothing otherwise).
"""

from __future__ import annotations

import json
import re
from datetime import date
from urllib.parse import quote, urlsplit

import requests

from sources.azure_retail.skus import LOOKS_LIKE_GPU, gpu_for
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.http import get_bytes
from sources.kit.records import Rejects
from sources.kit.rows import Frame, RowProblem, number, price_row, shown
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec

NAME = "azure_retail"
API = "https://prices.azure.com/api/retail/prices"
# GPU series are NC, ND and NV; contains() on armSkuName is what public clients use, and the
# Windows / Low Priority / DevTest meters it also returns are dropped in `parse`.
GPU_FILTER = (
    "serviceName eq 'Virtual Machines' and (contains(armSkuName, 'Standard_NC') "
    "or contains(armSkuName, 'Standard_ND') or contains(armSkuName, 'Standard_NV'))"
)
MAX_PAGES = 200  # ~20,000 items; the GPU filter returns a few thousand
MAX_BYTES = 4 * 1024 * 1024  # one page of 100 items is ~70 KB
# "A100 80GB" (our SKU table's name) or a product name that states the memory per GPU.
MEMORY = re.compile(r"(?<![0-9.])(\d{1,4})\s*GB\b", re.IGNORECASE)
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
        body = get_bytes(session, NAME, url, max_bytes=MAX_BYTES)
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
    except (ValueError, RecursionError) as exc:
        raise SourceError(NAME, f"{name}: not valid JSON (truncated?): {shown(str(exc), 120)}") from None
    if not isinstance(page, dict) or not isinstance(page.get("Items"), list):
        raise SourceError(NAME, f"{name}: no 'Items' list in the response envelope")
    return page


def parse(payload: Payload, observed_at: date) -> Parsed:
    items = _load(payload.name, payload.body)["Items"]
    mappings = [item for item in items if isinstance(item, dict)]
    for key in REQUIRED:
        if mappings and all(key not in item for item in mappings):
            raise SourceError(NAME, f"{payload.name}: field '{key}' missing from every item")
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    seen: set[tuple[str, str, str]] = set()
    for row_no, item in enumerate(items, start=1):
        with rejects.guard(row_no, item, ""):
            result = _item(row_no, item)
            if result is None:
                continue
            region, sku, gpu, count, usd, pricing = result
            if (region, sku, pricing) in seen:
                raise RowProblem("duplicate_meter", f"item {row_no}: second {pricing} price for {sku} in {region}")
            seen.add((region, sku, pricing))
            frame.add(price_row(
                provider="azure", region=region, zone=None, instance_type=sku, gpu_name=gpu, gpus_per_instance=count,
                usd_per_instance_hour=usd, pricing=pricing, currency=item["currencyCode"], observed_at=observed_at,
                source=NAME, source_ref=_ref(payload.url, item), source_row=row_no,
                gpu_memory_gb=_memory(gpu, item["productName"]),
            ))
    return Parsed(frame.finish(), rejects.result())


def _memory(gpu: str, product: object) -> float | None:
    for text in (gpu, product):
        match = MEMORY.search(text) if isinstance(text, str) else None
        if match:
            return float(match[1])
    return None


def _item(row_no: int, item) -> tuple | None:
    """(region, sku, gpu, count, usd per VM-hour, pricing); None when out of scope; RowProblem if bad."""
    if not isinstance(item, dict):
        raise RowProblem("not_a_mapping", f"item {row_no} is not an object")
    missing = [key for key in REQUIRED if key not in item]
    if missing:
        raise RowProblem("missing_field", f"item {row_no}: no {', '.join(missing)}")
    sku, kind = item["armSkuName"], item["type"]
    if not isinstance(sku, str):
        raise RowProblem("wrong_type", f"item {row_no}: armSkuName is {shown(sku)}, not text")
    names = f"{item['skuName']} {item['meterName']}"
    if (kind == "DevTestConsumption" or NOT_LINUX_VM.search(str(item["productName"]))
            or "Low Priority" in names or "Promo" in sku or not LOOKS_LIKE_GPU.match(sku)):
        return None  # Windows / Cloud Services / DevTest / Low Priority / Promo / CPU: not ours
    try:
        price = number(item["retailPrice"], "retailPrice", "unparseable_price")
    except RowProblem as exc:
        if exc.rule != "unparseable_price":
            raise RowProblem(exc.rule, f"item {row_no}: {exc.detail}") from None
        price = None
    if price is None:
        detail = f"item {row_no}: retailPrice {shown(item['retailPrice'])} is not a number"
        raise RowProblem("unparseable_price", detail)
    if price == 0:
        return None  # $0 placeholder meters exist (price_sources.md §1.1)
    if price < 0:
        raise RowProblem("bad_price", f"item {row_no}: retailPrice {price}")
    found = gpu_for(sku)
    if found is None:
        raise RowProblem("unknown_sku", f"item {row_no}: no GPU known for {sku[:80]}")
    if item["unitOfMeasure"] != "1 Hour":
        raise RowProblem("unexpected_unit",
                         f"item {row_no}: unitOfMeasure {shown(item['unitOfMeasure'])}, expected '1 Hour'")
    region = item["armRegionName"]
    region = region.lower() if isinstance(region, str) else ""  # case differs between APIs (§1.1)
    if not region:
        raise RowProblem("missing_region", f"item {row_no}: armRegionName is empty")
    if kind == "Consumption":
        pricing = "spot" if " Spot" in names else "on_demand"
        return region, sku, *found, price, pricing
    if kind == "Reservation":
        term = item.get("reservationTerm")
        if not isinstance(term, str) or term not in TERMS:
            raise RowProblem("unknown_reservation_term", f"item {row_no}: reservationTerm {shown(term)}")
        pricing, hours = TERMS[term]
        return region, sku, *found, price / hours, pricing
    raise RowProblem("unknown_price_type", f"item {row_no}: type {shown(kind)}")


def _ref(url: str, item: dict) -> str:
    start = item.get("effectiveStartDate")
    return f"{url}#effectiveStartDate={start}" if isinstance(start, str) and start and len(start) < 60 else url


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Azure Retail Prices API: GPU VM on-demand, Spot and 1y/3y reservations (per VM-hour)",
    key_env=None,
    fetch=fetch,
    parse=parse,
    max_bytes=MAX_BYTES,
)
