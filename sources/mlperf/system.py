"""Read a submission's systems/<system>.json: which accelerator, how many, how much memory.

gpu_name stays exactly as the system JSON spells `accelerator_model_name`; the GPU identity
resolver (sources/gpu_identity/) turns name + memory into a catalog id. A system that
mixes accelerator models (MangoBoost's v5.1 cluster: "AMD Instinct MI300X 192GB HBM3 (x32),
AMD Instinct MI325X 256GB HBM3e (x16)") has no single GPU to attribute a rate to, so its
results are rejected rather than credited to either model.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

MAX_COUNT = 1_000_000  # accelerators per node or nodes beyond this are a typo, not a system
COUNT_TAG = re.compile(r"\(\s*x\s*\d+\s*\)", re.IGNORECASE)  # "(x32)": how many of one model
MEMORY = re.compile(r"\b(\d+(?:\.\d+)?)\s*(tib|tb|gib|gb|mib|mb)?\b", re.IGNORECASE)
TO_GB = {"tb": 1000.0, "tib": 1024**4 / 1e9, "gb": 1.0, "gib": 1024**3 / 1e9, "mb": 1e-3, "mib": 1024**2 / 1e9}


class SystemProblem(Exception):
    """The system JSON cannot attribute this system's results to one accelerator."""

    def __init__(self, rule: str, detail: str):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail


@dataclass(frozen=True)
class System:
    gpu_name: str
    gpu_count: int
    nodes: int
    gpu_memory_gb: float | None
    software: str | None
    notes: str  # sw_notes + framework, where precision is sometimes declared
    submitter: str | None
    division: str | None


def _count(system: dict, key: str, path: str, default: int | None = None) -> int:
    value = system.get(key)
    if value in (None, "") and default is not None:
        return default
    try:
        number = float(str(value).strip())  # system JSONs write 8, "8" or "8.0"
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number == int(number) and 1 <= number <= MAX_COUNT):
        raise SystemProblem("mlperf_bad_system", f"{path}: {key}={value!r} is not a whole number of at least 1")
    return int(number)


def memory_gb(value) -> float | None:
    """Per-accelerator memory in GB from "180 GB", "284208 MiB" or 80; None if not exactly one figure."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) and value > 0 else None
    if not isinstance(value, str):
        return None
    figures = {(float(n), (u or "gb").lower()) for n, u in MEMORY.findall(value)}
    if len(figures) != 1:
        return None
    number, unit = figures.pop()
    return round(number * TO_GB[unit], 3) if 0 < number < 1e9 else None


def _text(value) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def read_system(files: dict[str, str], unfetched: dict[str, str], path: str) -> System:
    """The System of `path` in a bundle, or SystemProblem saying why there is none."""
    if path in unfetched:
        raise SystemProblem("mlperf_file_unavailable", f"{path} could not be read: {unfetched[path]}")
    if path not in files:
        raise SystemProblem("mlperf_bad_system", f"{path} is not in the bundle")
    try:
        system = json.loads(files[path])
    except (ValueError, RecursionError) as exc:
        raise SystemProblem("mlperf_bad_system", f"{path} is not JSON ({exc})") from None
    name = _text(system.get("accelerator_model_name")) if isinstance(system, dict) else None
    if not name:
        raise SystemProblem("mlperf_bad_system", f"{path} lacks accelerator_model_name")
    if len(COUNT_TAG.findall(name)) >= 2:
        raise SystemProblem(
            "mlperf_mixed_accelerators", f"{path}: accelerator_model_name {name!r} names more than one model"
        )
    per_node = _count(system, "accelerators_per_node", path)
    nodes = _count(system, "number_of_nodes", path, default=1)
    framework = _text(system.get("framework"))
    return System(
        gpu_name=name,
        gpu_count=per_node * nodes,
        nodes=nodes,
        gpu_memory_gb=memory_gb(system.get("accelerator_memory_capacity")),
        software=framework,
        notes=f"{_text(system.get('sw_notes')) or ''} {framework or ''}",
        submitter=_text(system.get("submitter")),
        division=_text(system.get("division")),
    )
