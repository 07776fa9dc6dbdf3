"""AWS Price List bulk offer files: official EC2 on-demand and reserved prices, keyless.

One CSV per region from pricing.us-east-1.amazonaws.com (price_sources.md §1.2); there is no
spot price in these files. A regional file is hundreds of MB, so `fetch` streams it and
keeps only the 5 preamble lines, the header and the Linux GPU rows: **the raw payload kept
for replay is that filtered CSV, not the file as published** (same format, fewer rows).

Reserved rule (one row per instance, region and term): the standard, All Upfront offer,
as an effective hourly price = upfront fee / hours in the term (8760 or 26280) + its hourly
fee (0 for All Upfront). That is the same "total prepaid for the term, spread per hour"
that Azure reservations give, so the two clouds' reserved rows compare.

gpu_memory_gb is the offer file's `GPU Memory` (the instance total, "640 GB") / the GPU count.
"""

from __future__ import annotations

import logging
import re
from datetime import date

import requests

from sources.aws_pricelist.families import SOURCE, gpu_for, keep
from sources.aws_pricelist.offer_file import filter_lines, read_offer
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.http import TIMEOUT_S, describe_failure, failures_in_short
from sources.kit.records import Rejects, first_of_each
from sources.kit.rows import Frame, RowProblem, number, price_row
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec

NAME = SOURCE
URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"
REGIONS = ("us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-north-1")
TERMS = {"1yr": ("reserved_1y", 8760.0), "3yr": ("reserved_3y", 26280.0)}
# What parse reads is the filtered file fetch keeps (preamble, header, Linux GPU rows: ~1,500
# rows of ~750 bytes, 1-2 MB per region); fetch refuses to keep more than this, parse the same.
MAX_BYTES = 16 * 1024 * 1024
# "GPU Memory" is the instance total, e.g. "640 GB" for 8 x H100.
GPU_MEMORY = re.compile(r"^\s*(\d{1,6}(?:\.\d+)?)\s*Gi?B\s*$", re.IGNORECASE)

log = logging.getLogger(__name__)


def fetch(session: requests.Session, observed_at: date, regions: tuple[str, ...] = REGIONS) -> list[Payload]:
    """One filtered payload per region; a failing region does not stop the others."""
    payloads, failures = [], []
    for region in regions:
        url = URL.format(region=region)
        try:
            payloads.append(Payload(NAME, f"{region}.csv", _stream(session, url, region), url, "aws"))
        except SourceError as exc:
            failures.append((region, exc.message))
    if not payloads:
        raise SourceError(NAME, "every region failed: " + failures_in_short(failures))
    if failures:
        log.warning("aws_pricelist: %d region(s) failed: %s", len(failures), failures_in_short(failures))
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
        raise SourceError(NAME, describe_failure(url, exc)) from exc


def parse(payload: Payload, observed_at: date) -> Parsed:
    offer = read_offer(payload.name, payload.body)
    ref = f"{payload.url}#version={offer.meta.get('Version', 'unknown')[:40]}"
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    reserved: dict[tuple[str, str, str], dict] = {}  # (instance, region, term) -> {unit: (usd, quote fields)}
    for row_no, row in offer.rows(rejects):
        with rejects.guard(row_no, row, ""):
            _row(row_no, row, ref, observed_at, frame, reserved)
    for (instance, region, term), fees in reserved.items():
        if "Quantity" not in fees:
            fields = fees["Hrs"][1]
            detail = (f"row {fields['source_row']}: All Upfront {term} reservation for {instance} in {region} "
                      "has no upfront fee")
            rejects.add(fields["source_row"], "missing_upfront_fee", detail, fields)
            continue
        upfront, fields = fees["Quantity"]
        pricing, hours = TERMS[term]
        hourly = fees.get("Hrs", (0.0, None))[0]
        with rejects.guard(fields["source_row"], fields, ""):
            frame.add(price_row(**fields, usd_per_instance_hour=upfront / hours + hourly, pricing=pricing))
    quotes = first_of_each(frame.finish(), ["instance_type", "region", "pricing"], rejects, _duplicate)
    return Parsed(quotes, rejects.result(by_row=True))


def _row(row_no: int, row: dict, ref: str, observed_at: date, frame: Frame, reserved: dict) -> None:
    # Host tenancy prices run on a Dedicated Host already paid for; Local Zones and
    # Outposts are not regions. Neither is a rental price for this table.
    in_region = row.get("Location Type", "AWS Region") == "AWS Region"
    if not keep(row) or row["Tenancy"] != "Shared" or not in_region:
        return
    is_reserved = row["TermType"] == "Reserved"
    if is_reserved and (row["OfferingClass"], row["PurchaseOption"]) != ("standard", "All Upfront"):
        return  # one documented rule: other reservation offers are not kept
    gpu, count = gpu_for(row_no, row)
    try:
        usd = number(row["PricePerUnit"], "PricePerUnit", "unparseable_price")
        if usd is None:
            raise RowProblem("unparseable_price", "empty")
    except RowProblem as exc:
        text = row["PricePerUnit"][:40]
        detail = f"PricePerUnit {text!r} is not a number" if exc.rule == "unparseable_price" else exc.detail
        raise RowProblem(exc.rule, f"row {row_no}: {detail}") from None
    if usd < 0 or not row["Region Code"]:
        detail = f"row {row_no}: PricePerUnit {usd} / Region Code {row['Region Code'][:40]!r}"
        raise RowProblem("bad_price_or_region", detail)
    fields = {
        "provider": "aws", "region": row["Region Code"], "zone": None, "instance_type": row["Instance Type"],
        "gpu_name": gpu, "gpus_per_instance": count, "currency": row["Currency"], "observed_at": observed_at,
        "source": NAME, "source_ref": ref, "source_row": row_no, "gpu_memory_gb": _memory(row, count),
    }
    if not is_reserved:
        if row["Unit"] != "Hrs":
            raise _unit(row_no, row, "Hrs")
        if usd > 0:  # $0 OnDemand rows are placeholders (e.g. capacity-block-only types)
            frame.add(price_row(**fields, usd_per_instance_hour=usd, pricing="on_demand"))
    elif row["LeaseContractLength"] not in TERMS:
        raise RowProblem("unknown_lease", f"row {row_no}: LeaseContractLength {row['LeaseContractLength'][:40]!r}")
    elif row["Unit"] not in ("Quantity", "Hrs"):
        raise _unit(row_no, row, "Quantity or Hrs")
    else:
        fees = reserved.setdefault((row["Instance Type"], row["Region Code"], row["LeaseContractLength"]), {})
        fees.setdefault(row["Unit"], (usd, fields))


def _memory(row: dict, count: float) -> float | None:
    match = GPU_MEMORY.match(row.get("GPU Memory", ""))
    return float(match[1]) / count if match else None


def _unit(row_no: int, row: dict, expected: str) -> RowProblem:
    detail = f"row {row_no}: Unit {row['Unit'][:40]!r} for a {row['TermType']} row, expected {expected}"
    return RowProblem("unexpected_unit", detail)


def _duplicate(q: dict) -> str:
    return f"row {q['source_row']}: second {q['pricing']} price for {q['instance_type']} in {q['region']}"


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="AWS Price List offer files (per region CSV): EC2 GPU on-demand + 1y/3y reserved",
    key_env=None,
    fetch=fetch,
    parse=parse,
    max_bytes=MAX_BYTES,
)
