"""Lambda Cloud on-demand list prices from `GET /api/v1/instance-types` (needs LAMBDA_API_KEY).

Traps handled (price_sources.md §1.6):
* `price_cents_per_hour` is integer CENTS per INSTANCE-hour: 2490 -> 24.90 USD.
* GPU count comes from the name `gpu_{n}x_{model}[_suffix]` and is cross-checked with
  `specs.gpus`; a disagreement is a rejected row, not a guess.
* `regions_with_capacity_available` is live capacity, not the price list (SkyPilot writes
  one price into every region): one row per type with region "global".
* there is no spot market.

gpu_name is the API's `gpu_description` (e.g. "H100 (80 GB SXM5)"), which carries memory
and form factor; when it is absent, the model part of the name ("a100_80gb_sxm4").
CPU-only types (`cpu_*`, or specs.gpus == 0) are not GPU prices and are skipped.
"""

from __future__ import annotations

import json
import os
import re
from datetime import date

import polars as pl
import requests

from sources.base import MissingKey, Parsed, Payload, Reject, SourceError, SourceSpec
from sources.contracts import PRICE_QUOTE, conform
from sources.http import get_bytes

NAME = "lambda_cloud"
PROVIDER = "lambda"
URL = "https://cloud.lambdalabs.com/api/v1/instance-types"
KEY_ENV = "LAMBDA_API_KEY"
NAME_PATTERN = re.compile(r"^gpu_(?P<count>\d+)x_(?P<model>[a-z0-9][a-z0-9_]*)$")


def fetch(session: requests.Session, observed_at: date) -> list[Payload]:
    key = os.environ.get(KEY_ENV)
    if not key:
        raise MissingKey(NAME, f"set {KEY_ENV} to enable")
    body = get_bytes(session, NAME, URL, headers={"Authorization": f"Bearer {key}"})
    return [Payload(source=NAME, name="instance_types.json", body=body, url=URL, provider=PROVIDER)]


def _entries(payload: Payload) -> dict:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({exc})") from exc
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise SourceError(NAME, f"{payload.url}: no 'data' object in response")
    if not entries:
        raise SourceError(NAME, f"{payload.url}: empty instance type list")
    types = [e.get("instance_type") for e in entries.values() if isinstance(e, dict)]
    if not any(isinstance(t, dict) for t in types):
        raise SourceError(NAME, f"{payload.url}: field 'instance_type' missing from every entry")
    if not any(isinstance(t, dict) and "price_cents_per_hour" in t for t in types):
        raise SourceError(NAME, f"{payload.url}: field 'price_cents_per_hour' missing from every type")
    return entries


def _row(i: int, key: str, entry) -> tuple[dict | None, tuple[str, str] | None]:
    """Return (contract fields, None) for a GPU type, (None, (rule, detail)) for a bad one,
    or (None, None) for a CPU-only type."""
    itype = entry.get("instance_type") if isinstance(entry, dict) else None
    if not isinstance(itype, dict):
        return None, ("lambda_bad_entry", f"entry {i} ({key}) has no instance_type object")
    name = itype.get("name") or key
    specs = itype.get("specs") if isinstance(itype.get("specs"), dict) else {}
    spec_gpus = specs.get("gpus")
    if name.startswith("cpu_") or spec_gpus == 0:
        return None, None
    match = NAME_PATTERN.match(name)
    if not match:
        return None, ("lambda_unparsed_name", f"entry {i}: cannot read GPU count/model from {name!r}")
    count = int(match["count"])
    if spec_gpus is not None and spec_gpus != count:
        return None, (
            "lambda_gpu_count_mismatch",
            f"entry {i}: {name!r} names {count} GPUs but specs.gpus is {spec_gpus!r}",
        )
    cents = itype.get("price_cents_per_hour")
    if isinstance(cents, bool) or not isinstance(cents, int | float) or cents <= 0:
        return None, ("lambda_bad_price", f"entry {i} ({name}) has price_cents_per_hour={cents!r}")
    description = itype.get("gpu_description")
    gpu = description.strip() if isinstance(description, str) and description.strip() else match["model"]
    return {
        "instance_type": name,
        "gpu_name": gpu,
        "gpus_per_instance": float(count),
        "usd_per_instance_hour": cents / 100,
    }, None


def parse(payload: Payload, observed_at: date) -> Parsed:
    rows: list[dict] = []
    rejects: list[Reject] = []
    for i, (key, entry) in enumerate(_entries(payload).items(), start=1):
        fields, problem = _row(i, key, entry)
        if problem:
            rejects.append(Reject(NAME, i, problem[0], problem[1], entry if isinstance(entry, dict) else {}))
        if fields:
            rows.append(
                fields
                | {
                    "provider": PROVIDER,
                    "region": "global",
                    "zone": None,
                    "pricing": "on_demand",
                    "currency": "USD",
                    "observed_at": observed_at,
                    "source": NAME,
                    "source_ref": payload.url,
                    "source_row": i,
                }
            )
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return Parsed(conform(frame, PRICE_QUOTE), rejects)


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Lambda Cloud on-demand list prices (instance-types API, cents per instance-hour)",
    key_env=KEY_ENV,
    fetch=fetch,
    parse=parse,
    default_provider=PROVIDER,
)
