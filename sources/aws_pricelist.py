"""AWS Price List bulk offer files: official EC2 on-demand and reserved prices, keyless.

One CSV per region from pricing.us-east-1.amazonaws.com (price_sources.md §1.2); there is no
spot price in these files. A regional file is hundreds of MB, so `fetch` streams it and
keeps only the 5 preamble lines, the header and the Linux GPU rows: **the raw payload kept
for replay is that filtered CSV, not the file as published** (same format, fewer rows).

Reserved rule (one row per instance, region and term): the standard, All Upfront offer,
as an effective hourly price = upfront fee / hours in the term (8760 or 26280) + its hourly
fee (0 for All Upfront). That is the same "total prepaid for the term, spread per hour"
that Azure reservations give, so the two clouds' reserved rows compare.
"""

from __future__ import annotations

import logging
import math
from datetime import date

import polars as pl
import requests

from sources._aws_pricelist_csv import filter_lines, read_offer
from sources._aws_pricelist_types import SOURCE, gpu_for, keep
from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec
from sources.contracts import PRICE_QUOTE, conform
from sources.http import MAX_BYTES, TIMEOUT_S

NAME = SOURCE
URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"
REGIONS = ("us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-north-1")
TERMS = {"1yr": ("reserved_1y", 8760.0), "3yr": ("reserved_3y", 26280.0)}

log = logging.getLogger(__name__)


def fetch(session: requests.Session, observed_at: date, regions: tuple[str, ...] = REGIONS) -> list[Payload]:
    """One filtered payload per region; a failing region does not stop the others."""
    payloads, failures = [], []
    for region in regions:
        url = URL.format(region=region)
        try:
            payloads.append(Payload(NAME, f"{region}.csv", _stream(session, url, region), url, "aws"))
        except SourceError as exc:
            failures.append(f"{region}: {exc.message}")
    if not payloads:
        raise SourceError(NAME, "every region failed: " + "; ".join(failures))
    if failures:
        log.warning("aws_pricelist: %d region(s) failed: %s", len(failures), "; ".join(failures))
    return payloads


def _stream(session: requests.Session, url: str, region: str) -> bytes:
    received = 0

    def counted(chunks):
        nonlocal received
        for chunk in chunks:
            received += len(chunk)
            yield chunk

    try:
        with session.get(url, stream=True, timeout=TIMEOUT_S) as response:
            if response.status_code >= 400:
                raise SourceError(NAME, f"HTTP {response.status_code} from {url}")
            body = filter_lines(f"{region}.csv", counted(response.iter_content(1 << 20)), MAX_BYTES)
            declared = response.headers.get("Content-Length", "")
            identity = response.headers.get("Content-Encoding", "identity") == "identity"
            if declared.isdigit() and identity and int(declared) != received:
                raise SourceError(NAME, f"truncated response from {url}: {received} of {declared} bytes")
            return body
    except requests.RequestException as exc:
        raise SourceError(NAME, f"request to {url} failed: {exc}") from exc


def parse(payload: Payload, observed_at: date) -> Parsed:
    offer = read_offer(payload.name, payload.body)
    ref = f"{payload.url}#version={offer.meta.get('Version', 'unknown')}"
    quotes: list[dict] = []
    rejects: list[Reject] = list(offer.rejects)
    reserved: dict[tuple[str, str, str], dict] = {}  # (instance, region, term) -> fees
    for row_no, row in offer.rows:
        # Host tenancy prices run on a Dedicated Host already paid for; Local Zones and
        # Outposts are not regions. Neither is a rental price for this table.
        in_region = row.get("Location Type", "AWS Region") == "AWS Region"
        if not keep(row) or row["Tenancy"] != "Shared" or not in_region:
            continue
        is_reserved = row["TermType"] == "Reserved"
        if is_reserved and (row["OfferingClass"], row["PurchaseOption"]) != ("standard", "All Upfront"):
            continue  # one documented rule: other reservation offers are not kept
        found = gpu_for(row_no, row)
        if isinstance(found, Reject):
            rejects.append(found)
            continue
        try:
            usd = float(row["PricePerUnit"])
        except ValueError:
            detail = f"row {row_no}: PricePerUnit {row['PricePerUnit']!r} is not a number"
            rejects.append(Reject(NAME, row_no, "unparseable_price", detail, row))
            continue
        if not math.isfinite(usd) or usd < 0 or not row["Region Code"]:
            detail = f"row {row_no}: PricePerUnit {usd} / Region Code {row['Region Code']!r}"
            rejects.append(Reject(NAME, row_no, "bad_price_or_region", detail, row))
            continue
        base = {"row_no": row_no, "row": row, "gpu": found}
        if not is_reserved:
            if row["Unit"] != "Hrs":
                rejects.append(_unit(row_no, row, "Hrs"))
            elif usd > 0:  # $0 OnDemand rows are placeholders (e.g. capacity-block-only types)
                quotes.append(_quote(base, usd, "on_demand", ref, observed_at))
        elif row["LeaseContractLength"] not in TERMS:
            detail = f"row {row_no}: LeaseContractLength {row['LeaseContractLength']!r}"
            rejects.append(Reject(NAME, row_no, "unknown_lease", detail, row))
        elif row["Unit"] not in ("Quantity", "Hrs"):
            rejects.append(_unit(row_no, row, "Quantity or Hrs"))
        else:
            key = (row["Instance Type"], row["Region Code"], row["LeaseContractLength"])
            fees = reserved.setdefault(key, {})
            fees.setdefault(row["Unit"], (usd, base))
    for (instance, region, term), fees in reserved.items():
        if "Quantity" not in fees:
            no = fees["Hrs"][1]["row_no"]
            detail = f"row {no}: All Upfront {term} reservation for {instance} in {region} has no upfront fee"
            rejects.append(Reject(NAME, no, "missing_upfront_fee", detail, fees["Hrs"][1]["row"]))
            continue
        upfront, base = fees["Quantity"]
        pricing, hours = TERMS[term]
        hourly = fees.get("Hrs", (0.0, None))[0]
        quotes.append(_quote(base, upfront / hours + hourly, pricing, ref, observed_at))
    quotes, dupes = _first_only(quotes)
    rejects = sorted(rejects + dupes, key=lambda r: r.source_row)
    return Parsed(conform(pl.DataFrame(quotes, schema=PRICE_QUOTE), PRICE_QUOTE), rejects)


def _unit(row_no: int, row: dict, expected: str) -> Reject:
    detail = f"row {row_no}: Unit {row['Unit']!r} for a {row['TermType']} row, expected {expected}"
    return Reject(NAME, row_no, "unexpected_unit", detail, row)


def _quote(base: dict, usd: float, pricing: str, ref: str, observed_at: date) -> dict:
    row = base["row"]
    gpu, count = base["gpu"]
    return {
        "provider": "aws", "region": row["Region Code"], "zone": None, "instance_type": row["Instance Type"],
        "gpu_name": gpu, "gpus_per_instance": count, "usd_per_instance_hour": usd, "pricing": pricing,
        "currency": row["Currency"], "observed_at": observed_at, "source": NAME, "source_ref": ref,
        "source_row": base["row_no"],
    }


def _first_only(quotes: list[dict]) -> tuple[list[dict], list[Reject]]:
    seen: set[tuple[str, str, str]] = set()
    kept, rejects = [], []
    for q in quotes:
        key = (q["instance_type"], q["region"], q["pricing"])
        if key in seen:
            detail = f"row {q['source_row']}: second {key[2]} price for {key[0]} in {key[1]}"
            rejects.append(Reject(NAME, q["source_row"], "duplicate_row", detail))
            continue
        seen.add(key)
        kept.append(q)
    return kept, rejects


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="AWS Price List offer files (per region CSV): EC2 GPU on-demand + 1y/3y reserved",
    key_env=None,
    fetch=fetch,
    parse=parse,
)
