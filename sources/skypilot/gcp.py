"""GCP in the SkyPilot catalog: compose instance prices from host VM rows and GPU rows.

GCP bills the GPU separately from the host VM even on accelerator-optimized machines, so
SkyPilot's gcp `vms.csv` has host rows with no accelerator and accelerator rows with no
InstanceType (price_sources.md §1.3, §2; skypilot-catalog#31: a2-highgpu-1g shown at $0.94
instead of $4.05). An instance price is host + GPU price for the GPUs the host carries.
Two passes over the streamed table: GPU prices first (they come after the hosts), then hosts.
"""

from __future__ import annotations

from datetime import date

from sources.kit.records import Rejects
from sources.kit.rows import Frame, RowProblem, finite, price_row
from sources.kit.spec import SourceError
from sources.skypilot.rows import PRICE_COLUMNS, SOURCE, Table, count, gpu_memory, price

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
# GPU price rows a real catalog has: ~20 accelerators x ~100 zones x 2 pricings. Far more is
# not GCP's catalog, and indexing it all would cost memory before the row cap could refuse it.
MAX_GPU_PRICES = 100_000

Key = tuple[str, str, str | None, str]  # (accelerator, region, zone, pricing)


class GpuPrices:
    """Accelerator rows by (count, accelerator, region, zone, pricing), per GPU, and memory."""

    def __init__(self) -> None:
        self.exact: dict[tuple, float] = {}
        self.per_gpu: dict[Key, float] = {}
        self.memory: dict[str, float] = {}

    def read(self, table: Table, rejects: Rejects) -> None:
        for row_no, row in table.rows(rejects):
            name = row["AcceleratorName"]
            if row["InstanceType"] or not name or name.lower().startswith("tpu"):
                continue
            with rejects.guard(row_no, row, ""):
                gpus = count(row_no, row)
                memory = gpu_memory("gcp", row, gpus)
                if memory is not None:
                    self.memory.setdefault(name, memory)
                for column, pricing in PRICE_COLUMNS:
                    with rejects.guard(row_no, row, ""):
                        usd = price(row_no, row, column)
                        if usd is None:
                            continue
                        key = (name, row["Region"], row.get("AvailabilityZone") or None, pricing)
                        if len(self.exact) >= MAX_GPU_PRICES:
                            raise SourceError(SOURCE, f"{table.name}: more than {MAX_GPU_PRICES:,} GPU price rows")
                        self.exact[(gpus, *key)] = usd
                        self.per_gpu.setdefault(key, usd / gpus)

    def for_host(self, gpu: str, gpus: float, region: str, zone: str | None, pricing: str) -> float | None:
        key = (gpu, region, zone, pricing)
        found = self.exact.get((gpus, *key))
        if found is None and key in self.per_gpu:
            found = self.per_gpu[key] * gpus  # GCP prices GPUs per GPU-hour, so this is exact
        return found


def compose(table: Table, ref: str, observed_at: date, frame: Frame, rejects: Rejects) -> None:
    """Quotes for GCP host rows whose GPUs are priced in accelerator rows of the same zone."""
    prices = GpuPrices()
    prices.read(table, rejects)
    for row_no, row in table.rows():  # malformed rows were reported by the first pass
        instance = row["InstanceType"]
        if not instance or row["AcceleratorName"]:
            continue
        if instance not in HOST_GPUS:
            if instance.startswith(GPU_HOST_PREFIXES):
                detail = f"row {row_no}: GCP host {instance} carries GPUs but is not in HOST_GPUS"
                rejects.add(row_no, "unknown_sku", detail, row)
            continue  # CPU-only host VM: out of scope
        gpu, gpus = HOST_GPUS[instance]
        region, zone = row["Region"], row.get("AvailabilityZone") or None
        for column, pricing in PRICE_COLUMNS:
            with rejects.guard(row_no, row, ""):
                host = price(row_no, row, column)
                if host is None:
                    continue
                gpu_usd = prices.for_host(gpu, gpus, region, zone, pricing)
                if gpu_usd is None:
                    detail = f"row {row_no}: {instance} in {zone or region} has a {column} but no {gpu} {pricing} price"
                    raise RowProblem("missing_gpu_price", detail)
                frame.add(price_row(
                    provider="gcp", region=region, zone=zone, instance_type=instance, gpu_name=gpu,
                    gpus_per_instance=gpus, usd_per_instance_hour=finite(host + gpu_usd, "host + GPU price"),
                    pricing=pricing, observed_at=observed_at, source=SOURCE, source_ref=ref, source_row=row_no,
                    gpu_memory_gb=prices.memory.get(gpu),
                ))
