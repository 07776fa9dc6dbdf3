"""SkyPilot catalog `vms.csv` files: on-demand and spot prices for 20+ clouds, keyless.

One payload per cloud, from skypilot-org/skypilot-catalog on GitHub (price_sources.md §2).
Prices are USD per instance-hour; AcceleratorCount is a float and may be fractional. The
same `parse` ingests a user's file when `Payload.provider` names the cloud.

Besides the price, each row says what the catalog knows about the GPU: gpu_memory_gb from
GpuInfo (unit rules in `skypilot/rows.py`, gpu_memory), price_statistic "median" for Vast's
bucket medians (its SpotPrice, the largest min_bid, is an auction_floor), and for Shadeform
the cloud that runs the machine, from the instance type's prefix ("crusoe_A100-80G-sxm4x8").
Rows stream from the text; one bad row or price is one reject.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import re
from datetime import date
from itertools import islice
from pathlib import Path

import requests

from sources.kit.contracts import PRICE_QUOTE
from sources.kit.http import failures_in_short, get_bytes
from sources.kit.records import Rejects, first_of_each
from sources.kit.rows import Frame, RowProblem, price_row
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec
from sources.skypilot import gcp
from sources.skypilot.rows import PRICE_COLUMNS, SOURCE, Table, count, gpu_memory, price, read_table

NAME = SOURCE
# The largest catalog (aws, 2025) is 3.7 MB; a limit with 8x head-room keeps memory bounded.
MAX_BYTES = 32 * 1024 * 1024
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
# Shadeform resells other clouds and names them in the instance type ("crusoe_A100-80G-sxm4x8");
# where the prefix is a cloud gpucalc knows under another id, that id is used.
UNDERLYING_IDS = {"lambdalabs": "lambda"}
# Flagship SKUs whose GPU count is a published fact (AWS/Azure instance docs); any other count
# is a catalog error and the row is rejected rather than repaired.
KNOWN_COUNTS: dict[tuple[str, str], float] = {
    ("aws", "p4d.24xlarge"): 8.0, ("aws", "p4de.24xlarge"): 8.0, ("aws", "p5.4xlarge"): 1.0,
    ("aws", "p5.48xlarge"): 8.0, ("aws", "p5e.48xlarge"): 8.0, ("aws", "p5en.48xlarge"): 8.0,
    ("aws", "p6-b200.48xlarge"): 8.0, ("azure", "Standard_ND96isr_H100_v5"): 8.0,
    ("azure", "Standard_ND96isr_H200_v5"): 8.0, ("azure", "Standard_ND96asr_v4"): 8.0,
    ("azure", "Standard_ND96amsr_A100_v4"): 8.0,
}

# Instance-type names only one cloud uses ("p5.48xlarge", "Standard_ND96isr_H100_v5",
# "gpu_8x_h100_sxm5", "a2-highgpu-1g", "BM.GPU.H100.8"): how an ingest tells a catalog saved
# from another cloud before its rows are stored under the wrong provider. Other clouds' names
# have no shape of their own; their files are told by the file name alone.
INSTANCE_SHAPES = {
    "aws": re.compile(r"^[a-z][a-z0-9-]*\.(?:nano|micro|small|medium|\d*x?large|metal(?:-\d+xl)?)$"),
    "azure": re.compile(r"^(?:Standard|Basic)_"),
    "gcp": re.compile(r"^[a-z][a-z0-9]{1,5}-(?:[a-z]+gpu|standard|highmem|highcpu|ultramem|megamem)-\d+[a-z]?$"),
    "lambda": re.compile(r"^(?:gpu|cpu)_\d+x_"),
    "oci": re.compile(r"^(?:BM|VM)\.[A-Za-z]"),
}
SHAPE_SAMPLE = 5000  # rows looked at: enough to tell a cloud, bounded for the largest catalog
MOSTLY = 0.8  # the share of rows with another cloud's shape that says the file is that cloud's
# SkyPilot names its files by cloud: <cloud>_vms.csv as the live fetch keeps them, or
# catalogs/<version>/<cloud>/vms.csv in a checkout of skypilot-catalog.
KEPT_FILE_NAME = re.compile(r"^([a-z0-9]+)_vms\.csv$")

log = logging.getLogger(__name__)


def fetch(session: requests.Session, observed_at: date, clouds: tuple[str, ...] = CLOUDS) -> list[Payload]:
    """Download every cloud's vms.csv; one failing cloud does not stop the others."""
    payloads: list[Payload] = []
    failures: list[tuple[str, str]] = []
    for cloud in clouds:
        try:
            url, body = _download(session, cloud)
        except SourceError as exc:
            failures.append((cloud, exc.message))
            continue
        payloads.append(Payload(NAME, f"{cloud}_vms.csv", body, url, provider=cloud))
    if not payloads:
        raise SourceError(NAME, "every cloud failed: " + failures_in_short(failures))
    if failures:
        log.warning("skypilot: %d cloud(s) failed: %s", len(failures), failures_in_short(failures))
    return payloads


def wrong_cloud(file: Path, payload: Payload) -> str | None:
    """Why a local catalog file is not the catalog of `payload.provider` (one sentence), or None.

    By its name first (lambda_vms.csv, catalogs/v8/lambda/vms.csv), then by the shape of its
    instance types; a file that cannot be read as a catalog is left to `parse` to refuse.
    """
    claimed = (payload.provider or "").lower()
    named = _cloud_named_by(file)
    if named and named != claimed:
        return f"{file.name} is SkyPilot's catalog of {named}, not of {claimed}: ingest it with --provider {named}"
    try:
        types = [row["InstanceType"] for _, row in islice(read_table(payload).rows(), SHAPE_SAMPLE)
                 if row["InstanceType"]]
    except (SourceError, csv.Error):
        return None
    if not types:
        return None
    share = {cloud: sum(bool(shape.match(t)) for t in types) / len(types) for cloud, shape in INSTANCE_SHAPES.items()}
    likeliest = max(share, key=share.get)
    if likeliest != claimed and share[likeliest] >= MOSTLY:
        example = next(t for t in types if INSTANCE_SHAPES[likeliest].match(t))
        return (f"{file.name} looks like {likeliest}'s catalog (instance types like {example}), not {claimed}'s: "
                f"ingest it with --provider {likeliest}")
    if claimed in share and share[claimed] < 1 - MOSTLY:
        example = next(t for t in types if not INSTANCE_SHAPES[claimed].match(t))
        return (f"{file.name} does not look like {claimed}'s catalog (instance types like {example}): check the "
                "file, or name its cloud with --provider")
    return None


def _cloud_named_by(file: Path) -> str | None:
    match = KEPT_FILE_NAME.match(file.name)
    if match and match[1] in CLOUDS:
        return match[1]
    if file.name == "vms.csv" and file.parent.name in CLOUDS:
        return file.parent.name
    return None


def _download(session: requests.Session, cloud: str) -> tuple[str, bytes]:
    message = ""
    for version in VERSIONS:
        url = URL.format(version=version, cloud=cloud)
        try:
            return url, get_bytes(session, NAME, url, max_bytes=MAX_BYTES)
        except SourceError as exc:
            if not exc.message.startswith("HTTP 404"):
                raise
            message = exc.message
    raise SourceError(NAME, f"no vms.csv for {cloud} under {'/'.join(VERSIONS)} ({message})")


def parse(payload: Payload, observed_at: date) -> Parsed:
    provider = _provider(payload)
    table = read_table(payload)
    ref = f"{payload.url}#sha256={hashlib.sha256(payload.body).hexdigest()[:16]}"
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    if provider == "gcp":
        _refuse_accelerator_only(table)
        gcp.compose(table, ref, observed_at, frame, rejects)
    for row_no, row in table.rows(rejects if provider != "gcp" else None):  # gcp's were reported
        if not row["AcceleratorName"] or row["AcceleratorName"].lower().startswith("tpu"):
            continue  # CPU-only (or TPU) instance, or a GCP host row (compose() priced it)
        if provider == "gcp" and not row["InstanceType"]:
            continue  # a GCP accelerator row: priced into its hosts by compose()
        if row["InstanceType"].endswith("_Promo"):
            continue  # Azure promotional meters on retired series are not list prices (§5)
        with rejects.guard(row_no, row, ""):
            _instance_quotes(provider, row_no, row, ref, observed_at, frame, rejects)
    quotes = first_of_each(frame.finish(), ["provider", "region", "zone", "instance_type", "pricing"], rejects,
                           _duplicate)
    return Parsed(quotes, rejects.result(by_row=True))


def _duplicate(q: dict) -> str:
    return f"row {q['source_row']}: second {q['pricing']} price for {q['instance_type']} in {q['zone'] or q['region']}"


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
    rows = any_rows = False
    for _, row in table.rows():
        any_rows = True
        if row["InstanceType"]:
            rows = True
            break
    if any_rows and not rows:
        legacy = " (legacy pre-v5 schema, no vCPUs column)" if "vCPUs" not in table.header else ""
        raise SourceError(
            NAME, f"{table.name}: gcp catalog has accelerator rows but no host VM rows{legacy}; "
            "instance prices cannot be composed"
        )


def _instance_quotes(provider: str, row_no: int, row: dict[str, str], ref: str, observed_at: date,
                     frame: Frame, rejects: Rejects) -> None:
    gpus = _gpu_count(provider, row_no, row)
    if not row["Region"]:
        raise RowProblem("missing_region", f"row {row_no}: Region is empty")
    marketplace = provider == "vast"  # SkyPilot's vast Price is a bucket median, SpotPrice the max min_bid
    for column, pricing in PRICE_COLUMNS:
        with rejects.guard(row_no, row, ""):  # one bad column does not cost the other its row
            usd = price(row_no, row, column)
            if usd is None:
                continue
            frame.add(price_row(
                provider=provider, region=row["Region"], zone=row.get("AvailabilityZone") or None,
                instance_type=row["InstanceType"], gpu_name=row["AcceleratorName"], gpus_per_instance=gpus,
                usd_per_instance_hour=usd, pricing=pricing, observed_at=observed_at, source=NAME, source_ref=ref,
                source_row=row_no, gpu_memory_gb=gpu_memory(provider, row, gpus),
                price_statistic=("median" if pricing == "on_demand" else "auction_floor") if marketplace else "list",
                underlying_provider=_underlying(provider, row["InstanceType"]),
            ))


def _underlying(provider: str, instance_type: str) -> str | None:
    if provider != "shadeform" or "_" not in instance_type:
        return None
    prefix = instance_type.split("_", 1)[0].lower()
    return UNDERLYING_IDS.get(prefix, prefix) or None


def _gpu_count(provider: str, row_no: int, row: dict[str, str]) -> float:
    gpus = count(row_no, row)
    sku = (provider, row["InstanceType"])
    wrong, right = WRONG_COUNTS.get(sku, (None, None))
    if gpus == wrong:
        gpus = right
    known = KNOWN_COUNTS.get(sku)
    if known is not None and gpus != known:
        raise RowProblem("gpu_count_mismatch", f"row {row_no}: {sku[1]} has {known:g} GPUs, catalog says {gpus:g}")
    return gpus


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="SkyPilot catalog vms.csv per cloud (GitHub): on-demand + spot USD per instance-hour",
    key_env=None,
    fetch=fetch,
    parse=parse,
    max_bytes=MAX_BYTES,
    wrong_provider=wrong_cloud,
)
