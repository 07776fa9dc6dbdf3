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
gpu_memory_gb is the "80 GB" of gpu_description (else of description, else "80gb" in the name).
"""

from __future__ import annotations

import json
import re
from datetime import date

import requests

from sources.kit.contracts import PRICE_QUOTE
from sources.kit.environment import env
from sources.kit.http import get_bytes
from sources.kit.records import Rejects
from sources.kit.rows import MAX_GPUS, Frame, RowProblem, json_number, number, price_row, shown
from sources.kit.spec import MissingKey, Parsed, Payload, SourceError, SourceSpec

NAME = "lambda_cloud"
PROVIDER = "lambda"
URL = "https://cloud.lambdalabs.com/api/v1/instance-types"
KEY_ENV = "LAMBDA_API_KEY"
MAX_BYTES = 2 * 1024 * 1024  # ~30 instance types are ~20 KB of JSON
NAME_PATTERN = re.compile(r"^gpu_(?P<count>\d{1,6})x_(?P<model>[a-z0-9][a-z0-9_]*)$")
# "H100 (80 GB SXM5)", "1x A100 (40 GB SXM4)", "a100_80gb_sxm4": memory per GPU as Lambda states it.
MEMORY = re.compile(r"(?<![0-9.])(\d{1,4}(?:\.\d+)?)\s*_?gb", re.IGNORECASE)


def fetch(session: requests.Session, observed_at: date) -> list[Payload]:
    key = env(KEY_ENV)
    if not key:
        raise MissingKey(NAME, f"set {KEY_ENV} to enable")
    body = get_bytes(session, NAME, URL, headers={"Authorization": f"Bearer {key}"}, max_bytes=MAX_BYTES)
    return [Payload(source=NAME, name="instance_types.json", body=body, url=URL, provider=PROVIDER)]


def _entries(payload: Payload) -> dict:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({shown(str(exc), 120)})") from None
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


def memory_gb(itype: dict, model: str) -> float | None:
    """Per-GPU memory from gpu_description, else description, else the model part of the name."""
    for text in (itype.get("gpu_description"), itype.get("description"), model):
        match = MEMORY.search(text) if isinstance(text, str) else None
        if match:
            return float(match[1])
    return None


def _row(i: int, key: str, entry) -> dict | None:
    """Contract fields for a GPU type; None for a CPU-only type; RowProblem for a bad one."""
    itype = entry.get("instance_type") if isinstance(entry, dict) else None
    if not isinstance(itype, dict):
        raise RowProblem("lambda_bad_entry", f"entry {i} ({shown(key)}) has no instance_type object")
    name = itype.get("name") or key
    if not isinstance(name, str):
        raise RowProblem("wrong_type", f"entry {i}: name is {shown(name)}, not text")
    specs = itype.get("specs") if isinstance(itype.get("specs"), dict) else {}
    spec_gpus = specs.get("gpus")
    if name.startswith("cpu_") or (spec_gpus == 0 and not isinstance(spec_gpus, bool)):
        return None
    match = NAME_PATTERN.match(name)
    if not match:
        raise RowProblem("lambda_unparsed_name", f"entry {i}: cannot read GPU count/model from {shown(name)}")
    count = int(match["count"])
    if count > MAX_GPUS:
        raise RowProblem("implausible_value", f"entry {i}: {name!r} names {count} GPUs, above {MAX_GPUS}")
    if spec_gpus is not None and json_number(spec_gpus) != count:
        raise RowProblem(
            "lambda_gpu_count_mismatch", f"entry {i}: {name!r} names {count} GPUs but specs.gpus is {shown(spec_gpus)}"
        )
    cents = itype.get("price_cents_per_hour")
    if isinstance(cents, bool) or not isinstance(cents, int | float) or not number(cents, "price_cents_per_hour") > 0:
        raise RowProblem("lambda_bad_price", f"entry {i} ({name}) has price_cents_per_hour={shown(cents)}")
    description = itype.get("gpu_description")
    gpu = description.strip() if isinstance(description, str) and description.strip() else match["model"]
    return {
        "instance_type": name,
        "gpu_name": gpu,
        "gpus_per_instance": float(count),
        "usd_per_instance_hour": float(cents) / 100,
        "gpu_memory_gb": memory_gb(itype, match["model"]),
    }


def parse(payload: Payload, observed_at: date) -> Parsed:
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    for i, (key, entry) in enumerate(_entries(payload).items(), start=1):
        with rejects.guard(i, entry, ""):
            fields = _row(i, key, entry)
            if fields:
                frame.add(price_row(
                    **fields, provider=PROVIDER, region="global", zone=None, pricing="on_demand",
                    observed_at=observed_at, source=NAME, source_ref=payload.url, source_row=i,
                ))
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="Lambda Cloud on-demand list prices (instance-types API, cents per instance-hour)",
    key_env=KEY_ENV,
    fetch=fetch,
    parse=parse,
    default_provider=PROVIDER,
    max_bytes=MAX_BYTES,
)
