"""SkyPilot catalog `vms.csv` files: on-demand and spot prices for 20+ clouds, keyless.

One payload per cloud, from skypilot-org/skypilot-catalog on GitHub (price_sources.md §2).
Prices are USD per instance-hour; AcceleratorCount is a float and may be fractional. The
same `parse` ingests a user's file when `Payload.provider` names the cloud.
"""

from __future__ import annotations

import hashlib
import logging
import re
from datetime import date

import polars as pl
import requests

from sources import _skypilot_gcp
from sources._skypilot_rows import PRICE_COLUMNS, SOURCE, Table, number, price, quote, read_table
from sources.base import Parsed, Payload, Reject, SourceError, SourceSpec
from sources.contracts import PRICE_QUOTE, conform
from sources.http import get_bytes

NAME = SOURCE
URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/{version}/{cloud}/vms.csv"
# v8 is the newest schema; Azure, Paperspace, Fluidstack and DigitalOcean were last
# published under older versions (SOURCES.md: Azure and Paperspace are v6), so a 404 on v8
# falls back to the next older version.
VERSIONS = ("v8", "v7", "v6")
CLOUDS = (
    "aws", "gcp", "azure", "lambda", "runpod", "vast", "nebius", "oci", "paperspace", "shadeform",
    "verda", "fluidstack", "cudo", "do", "hyperbolic", "hyperstack", "jarvislabs", "lium", "mithril",
    "primeintellect", "seeweb", "spheron", "yotta",
)

# (cloud, InstanceType) -> (count SkyPilot wrote, true count). Azure v6 lists
# Standard_ND96isr_H100_v5 with 12 GPUs; the VM has 8 (price_sources.md §2, "Quirks").
WRONG_COUNTS: dict[tuple[str, str], tuple[float, float]] = {
    ("azure", "Standard_ND96isr_H100_v5"): (12.0, 8.0),
}
# Flagship SKUs whose GPU count is a published fact (AWS/Azure instance docs); any other count
# is a catalog error and the row is rejected rather than repaired.
KNOWN_COUNTS: dict[tuple[str, str], float] = {
    ("aws", "p4d.24xlarge"): 8.0, ("aws", "p4de.24xlarge"): 8.0, ("aws", "p5.4xlarge"): 1.0,
    ("aws", "p5.48xlarge"): 8.0, ("aws", "p5e.48xlarge"): 8.0, ("aws", "p5en.48xlarge"): 8.0,
    ("aws", "p6-b200.48xlarge"): 8.0, ("azure", "Standard_ND96isr_H100_v5"): 8.0,
    ("azure", "Standard_ND96isr_H200_v5"): 8.0, ("azure", "Standard_ND96asr_v4"): 8.0,
    ("azure", "Standard_ND96amsr_A100_v4"): 8.0,
}

log = logging.getLogger(__name__)


def fetch(session: requests.Session, observed_at: date, clouds: tuple[str, ...] = CLOUDS) -> list[Payload]:
    """Download every cloud's vms.csv; one failing cloud does not stop the others."""
    payloads: list[Payload] = []
    failures: list[str] = []
    for cloud in clouds:
        try:
            url, body = _download(session, cloud)
        except SourceError as exc:
            failures.append(f"{cloud}: {exc.message}")
            continue
        payloads.append(Payload(NAME, f"{cloud}_vms.csv", body, url, provider=cloud))
    if not payloads:
        raise SourceError(NAME, "every cloud failed: " + "; ".join(failures))
    if failures:
        log.warning("skypilot: %d cloud(s) failed: %s", len(failures), "; ".join(failures))
    return payloads


def _download(session: requests.Session, cloud: str) -> tuple[str, bytes]:
    message = ""
    for version in VERSIONS:
        url = URL.format(version=version, cloud=cloud)
        try:
            return url, get_bytes(session, NAME, url)
        except SourceError as exc:
            if not exc.message.startswith("HTTP 404"):
                raise
            message = exc.message
    raise SourceError(NAME, f"no vms.csv for {cloud} under {'/'.join(VERSIONS)} ({message})")


def parse(payload: Payload, observed_at: date) -> Parsed:
    provider = _provider(payload)
    table = read_table(payload)
    ref = f"{payload.url}#sha256={hashlib.sha256(payload.body).hexdigest()[:16]}"
    rows = table.rows
    quotes: list[dict] = []
    rejects = list(table.rejects)
    if provider == "gcp":
        _refuse_accelerator_only(table)
        quotes, rejects_gcp = _skypilot_gcp.compose(rows, ref, observed_at)
        rejects += rejects_gcp
        rows = [(n, r) for n, r in rows if r["InstanceType"] and r["AcceleratorName"]]
    for row_no, row in rows:
        if not row["AcceleratorName"] or row["AcceleratorName"].lower().startswith("tpu"):
            continue  # CPU-only (or TPU) instance: out of scope
        if row["InstanceType"].endswith("_Promo"):
            continue  # Azure promotional meters on retired series are not list prices (§5)
        found, bad = _instance_quotes(provider, row_no, row, ref, observed_at)
        quotes += found
        rejects += bad
    quotes, dupes = _drop_duplicates(quotes)
    frame = pl.DataFrame(quotes, schema=PRICE_QUOTE)
    return Parsed(conform(frame, PRICE_QUOTE), sorted(rejects + dupes, key=lambda r: r.source_row))


def _provider(payload: Payload) -> str:
    if payload.provider:
        return payload.provider.lower()
    match = re.search(r"/catalogs/v\d+/([^/]+)/vms\.csv", payload.url)
    if not match:
        raise SourceError(NAME, f"{payload.name}: cannot tell which cloud it describes; pass a provider")
    return match.group(1)


def _refuse_accelerator_only(table: Table) -> None:
    # The 2022 in-repo gcp.csv (no vCPUs column) holds only GPU/TPU rows; without host VM
    # rows no instance price can be composed, so it is refused rather than under-priced.
    if not any(r["InstanceType"] for _, r in table.rows) and table.rows:
        legacy = " (legacy pre-v5 schema, no vCPUs column)" if "vCPUs" not in table.header else ""
        raise SourceError(
            NAME, f"{table.name}: gcp catalog has accelerator rows but no host VM rows{legacy}; "
            "instance prices cannot be composed"
        )


def _instance_quotes(provider: str, row_no: int, row: dict[str, str], ref: str, observed_at: date):
    count, bad = _gpu_count(provider, row_no, row)
    if bad:
        return [], [bad]
    if not row["Region"]:
        return [], [Reject(NAME, row_no, "missing_region", f"row {row_no}: Region is empty", row)]
    quotes, rejects = [], []
    for column, pricing in PRICE_COLUMNS:
        usd, bad = price(row_no, row, column)
        if bad:
            rejects.append(bad)
        elif usd is not None:
            quotes.append(quote(
                provider=provider, row_no=row_no, region=row["Region"],
                zone=row.get("AvailabilityZone") or None, instance_type=row["InstanceType"],
                gpu_name=row["AcceleratorName"], gpus=count, usd=usd, pricing=pricing, ref=ref,
                observed_at=observed_at,
            ))
    return quotes, rejects


def _gpu_count(provider: str, row_no: int, row: dict[str, str]) -> tuple[float, Reject | None]:
    try:
        count = number(row, "AcceleratorCount")
    except ValueError:
        count = None
    if not count or count <= 0:
        detail = f"row {row_no}: AcceleratorCount {row['AcceleratorCount']!r} is not a positive number"
        return 0.0, Reject(NAME, row_no, "bad_gpu_count", detail, row)
    sku = (provider, row["InstanceType"])
    wrong, right = WRONG_COUNTS.get(sku, (None, None))
    if count == wrong:
        count = right
    known = KNOWN_COUNTS.get(sku)
    if known is not None and count != known:
        detail = f"row {row_no}: {sku[1]} has {known:g} GPUs, catalog says {count:g}"
        return 0.0, Reject(NAME, row_no, "gpu_count_mismatch", detail, row)
    return count, None


def _drop_duplicates(quotes: list[dict]) -> tuple[list[dict], list[Reject]]:
    seen: set[tuple] = set()
    kept, rejects = [], []
    for q in quotes:
        key = (q["provider"], q["region"], q["zone"], q["instance_type"], q["pricing"])
        if key in seen:
            detail = f"row {q['source_row']}: second {q['pricing']} price for {key[3]} in {key[2] or key[1]}"
            rejects.append(Reject(NAME, q["source_row"], "duplicate_row", detail))
            continue
        seen.add(key)
        kept.append(q)
    return kept, rejects


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="SkyPilot catalog vms.csv per cloud (GitHub): on-demand + spot USD per instance-hour",
    key_env=None,
    fetch=fetch,
    parse=parse,
)
