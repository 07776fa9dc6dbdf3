"""GCP in the SkyPilot catalog: compose instance prices from host VM rows and GPU rows.

GCP bills the GPU separately from the host VM even on accelerator-optimized machines, so
SkyPilot's gcp `vms.csv` has host rows with no accelerator and accelerator rows with no
InstanceType (price_sources.md §1.3, §2; skypilot-catalog#31: a2-highgpu-1g shown at $0.94
instead of $4.05). An instance price is host + GPU price for the GPUs the host carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from sources._skypilot_rows import PRICE_COLUMNS, SOURCE, number, price, quote
from sources.base import Reject

# Host machine type -> (accelerator as SkyPilot names it, GPUs per VM). From SkyPilot's
# gcp_catalog._ACC_INSTANCE_TYPE_DICTS (price_sources.md §2) and GCP's accelerator-optimized
# machine docs (a3-ultragpu-8g = 8 x H200, a4-highgpu-8g = 8 x B200).
HOST_GPUS: dict[str, tuple[str, float]] = {
    **{f"a2-highgpu-{n}g": ("A100", float(n)) for n in (1, 2, 4, 8)},
    "a2-megagpu-16g": ("A100", 16.0),
    **{f"a2-ultragpu-{n}g": ("A100-80GB", float(n)) for n in (1, 2, 4, 8)},
    **{f"a3-highgpu-{n}g": ("H100", float(n)) for n in (1, 2, 4, 8)},
    "a3-megagpu-8g": ("H100-MEGA", 8.0),
    "a3-ultragpu-8g": ("H200", 8.0),
    "a4-highgpu-8g": ("B200", 8.0),
    **{f"g2-standard-{n}": ("L4", 1.0) for n in (4, 8, 12, 16, 32)},
    "g2-standard-24": ("L4", 2.0),
    "g2-standard-48": ("L4", 4.0),
    "g2-standard-96": ("L4", 8.0),
}
# Series whose hosts always carry GPUs: a host of these not in HOST_GPUS (e.g. a3-edgegpu-8g)
# is rejected as unknown instead of silently dropped or guessed.
GPU_HOST_PREFIXES = ("a2-", "a3-", "a4-", "a4x-", "g2-", "g4-")

Key = tuple[str, str, str | None, str]  # (accelerator, region, zone, pricing)


def compose(
    rows: Iterable[tuple[int, dict[str, str]]], ref: str, observed_at: date
) -> tuple[list[dict], list[Reject]]:
    """Quotes for GCP host rows whose GPUs are priced in accelerator rows of the same zone."""
    rows = list(rows)
    exact, per_gpu, rejects = _gpu_prices(rows)
    quotes: list[dict] = []
    for row_no, row in rows:
        instance = row["InstanceType"]
        if not instance or row["AcceleratorName"]:
            continue
        if instance not in HOST_GPUS:
            if instance.startswith(GPU_HOST_PREFIXES):
                detail = f"row {row_no}: GCP host {instance} carries GPUs but is not in HOST_GPUS"
                rejects.append(Reject(SOURCE, row_no, "unknown_sku", detail, row))
            continue  # CPU-only host VM: out of scope
        gpu, count = HOST_GPUS[instance]
        region, zone = row["Region"], row.get("AvailabilityZone") or None
        for column, pricing in PRICE_COLUMNS:
            host, bad = price(row_no, row, column)
            if bad or host is None:
                rejects.extend([bad] if bad else [])
                continue
            key = (gpu, region, zone, pricing)
            gpu_usd = exact.get((count, *key))
            if gpu_usd is None and key in per_gpu:
                gpu_usd = per_gpu[key] * count  # GCP prices GPUs per GPU-hour, so this is exact
            if gpu_usd is None:
                where = zone or region
                detail = f"row {row_no}: {instance} in {where} has a {column} but no {gpu} {pricing} price"
                rejects.append(Reject(SOURCE, row_no, "missing_gpu_price", detail, row))
                continue
            quotes.append(quote(
                provider="gcp", row_no=row_no, region=region, zone=zone, instance_type=instance,
                gpu_name=gpu, gpus=count, usd=host + gpu_usd, pricing=pricing, ref=ref,
                observed_at=observed_at,
            ))
    return quotes, rejects


def _gpu_prices(rows: list[tuple[int, dict[str, str]]]):
    """Accelerator rows indexed by (count, accelerator, region, zone, pricing), and per GPU."""
    exact: dict[tuple[float, ...], float] = {}
    per_gpu: dict[Key, float] = {}
    rejects: list[Reject] = []
    for row_no, row in rows:
        name = row["AcceleratorName"]
        if row["InstanceType"] or not name or name.lower().startswith("tpu"):
            continue
        try:
            count = number(row, "AcceleratorCount")
        except ValueError:
            count = None
        if not count or count <= 0:
            detail = f"row {row_no}: AcceleratorCount {row['AcceleratorCount']!r} is not a positive number"
            rejects.append(Reject(SOURCE, row_no, "bad_gpu_count", detail, row))
            continue
        for column, pricing in PRICE_COLUMNS:
            usd, bad = price(row_no, row, column)
            if bad:
                rejects.append(bad)
            if usd is None:
                continue
            key = (name, row["Region"], row.get("AvailabilityZone") or None, pricing)
            exact[(count, *key)] = usd
            per_gpu.setdefault(key, usd / count)
    return exact, per_gpu, rejects
