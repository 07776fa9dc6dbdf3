"""RunPod GPU pods: list prices from the GraphQL `gpuTypes` query (needs RUNPOD_API_KEY).

Traps handled (price_sources.md §1.5):
* every price in `gpuTypes` is PER GPU-hour; rows are per instance, so price x count.
* Secure Cloud and Community Cloud are different products with different prices: two
  instance types, "<n>x <gpu> SECURE" and "<n>x <gpu> COMMUNITY".
* spot comes from secureSpotPrice / communitySpotPrice; 0 or null means "not offered".
* a pod can hold 1..maxGpuCount GPUs; we emit the common shapes 1, 2, 4, 8 up to the max
  (plus the max itself), which is what a user would compare against other clouds.
* prices are list prices valid everywhere ("global"); `stockStatus` (availability) is a
  different question and is not queried.

gpu_name is RunPod's gpu type id (e.g. "NVIDIA H100 80GB HBM3"), the most specific
spelling the API gives; the instance type drops the vendor prefix for readability;
gpu_memory_gb is the type's `memoryInGb` (per GPU).
"""

from __future__ import annotations

import json
from datetime import date

import requests

from sources.kit.contracts import PRICE_QUOTE
from sources.kit.environment import env
from sources.kit.http import get_bytes
from sources.kit.records import Rejects
from sources.kit.rows import MAX_GPUS, Frame, RowProblem, json_number, memory_gb, number, price_row, shown
from sources.kit.spec import MissingKey, Parsed, Payload, SourceError, SourceSpec

NAME = "runpod"
PROVIDER = "runpod"
URL = "https://api.runpod.io/graphql"
KEY_ENV = "RUNPOD_API_KEY"
MAX_BYTES = 2 * 1024 * 1024  # ~50 GPU types are ~20 KB of JSON
SHAPES = (1, 2, 4, 8)
QUERY = """query GpuTypes {
  gpuTypes {
    id displayName manufacturer memoryInGb maxGpuCount secureCloud communityCloud
    securePrice communityPrice secureSpotPrice communitySpotPrice
  }
}"""
# Field -> (cloud label, pricing). Both on-demand fields must exist or the schema changed.
PRICES = (
    ("securePrice", "SECURE", "on_demand"),
    ("communityPrice", "COMMUNITY", "on_demand"),
    ("secureSpotPrice", "SECURE", "spot"),
    ("communitySpotPrice", "COMMUNITY", "spot"),
)
REQUIRED = ("id", "maxGpuCount", "securePrice", "communityPrice")


def fetch(session: requests.Session, observed_at: date) -> list[Payload]:
    key = env(KEY_ENV)
    if not key:
        raise MissingKey(NAME, f"set {KEY_ENV} to enable")
    # Bearer header rather than ?api_key= so the key never lands in a URL or source_ref.
    body = get_bytes(
        session,
        NAME,
        URL,
        method="POST",
        json={"query": QUERY},
        headers={"Authorization": f"Bearer {key}"},
        max_bytes=MAX_BYTES,
    )
    return [Payload(source=NAME, name="gpu_types.json", body=body, url=URL, provider=PROVIDER)]


def _gpu_types(payload: Payload) -> list:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({shown(str(exc), 120)})") from None
    if not isinstance(data, dict):
        raise SourceError(NAME, f"{payload.url}: response is not a JSON object")
    found = data.get("data") if isinstance(data.get("data"), dict) else {}
    errors = data.get("errors")
    if errors and not found.get("gpuTypes"):
        listed = errors if isinstance(errors, list) else [errors]
        messages = "; ".join(str(e.get("message", e))[:200] for e in listed[:5] if isinstance(e, dict))
        raise SourceError(NAME, f"{payload.url}: GraphQL error: {messages or shown(errors, 200)}")
    types = found.get("gpuTypes")
    if not isinstance(types, list):
        raise SourceError(NAME, f"{payload.url}: no data.gpuTypes list in response")
    if not types:
        raise SourceError(NAME, f"{payload.url}: empty gpuTypes list")
    for key in REQUIRED:
        if not any(isinstance(t, dict) and key in t for t in types):
            raise SourceError(NAME, f"{payload.url}: field '{key}' missing from every gpu type")
    return types


def _price(value: object, what: str) -> float | None:
    """USD per GPU-hour; None when not sold (null, 0, negative or text)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    usd = number(value, what)  # nan / inf / giant ints are named, not dropped
    return usd if usd and usd > 0 else None


def shapes(max_count: int) -> list[int]:
    return sorted({n for n in SHAPES if n <= max_count} | {max_count})


def _offers(gpu) -> list[tuple[str, str, float]]:
    """(cloud, pricing, USD per GPU-hour) for each price the type is sold at; RowProblem if none."""
    if not isinstance(gpu, dict) or not isinstance(gpu.get("id"), str) or not gpu["id"].strip():
        raise RowProblem("runpod_missing_id", "has no id")
    max_count = gpu.get("maxGpuCount")
    if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
        raise RowProblem("runpod_bad_max_gpu_count", f"has maxGpuCount={shown(max_count)}")
    if max_count > MAX_GPUS:
        raise RowProblem("implausible_value", f"has maxGpuCount={max_count}, above {MAX_GPUS}")
    # secureCloud/communityCloud false means the type is not sold there, whatever the price.
    sold = {
        "SECURE": gpu.get("secureCloud") is not False,
        "COMMUNITY": gpu.get("communityCloud") is not False,
    }
    offers = [(cloud, pricing, _price(gpu.get(field), field)) for field, cloud, pricing in PRICES]
    offers = [o for o in offers if o[2] is not None and sold[o[0]]]
    if not offers:
        # Listed but unpriced types (retired or not yet launched) are normal; note them.
        raise RowProblem("runpod_no_price", "has no positive price")
    return offers


def parse(payload: Payload, observed_at: date) -> Parsed:
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    for i, gpu in enumerate(_gpu_types(payload), start=1):
        ident = gpu.get("id") if isinstance(gpu, dict) else None
        with rejects.guard(i, gpu, f"gpu type {i}" + (f" ({ident})" if isinstance(ident, str) else "")):
            offers = _offers(gpu)
            label = gpu["id"].removeprefix("NVIDIA ").strip()
            memory = memory_gb(json_number(gpu.get("memoryInGb")))
            for cloud, pricing, per_gpu in offers:
                for n in shapes(gpu["maxGpuCount"]):
                    frame.add(price_row(
                        provider=PROVIDER, region="global", zone=None, instance_type=f"{n}x {label} {cloud}",
                        gpu_name=gpu["id"], gpus_per_instance=float(n), usd_per_instance_hour=per_gpu * n,
                        pricing=pricing, observed_at=observed_at, source=NAME, source_ref=payload.url,
                        source_row=i, gpu_memory_gb=memory,
                    ))
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="RunPod pod list prices (GraphQL gpuTypes): secure/community on-demand and "
    "spot, per-GPU prices x 1/2/4/8 GPUs",
    key_env=KEY_ENV,
    fetch=fetch,
    parse=parse,
    default_provider=PROVIDER,
    max_bytes=MAX_BYTES,
)
