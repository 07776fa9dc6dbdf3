"""Azure VM SKU (armSkuName) -> (GPU, GPUs per VM): the Retail Prices feed has neither.

price_sources.md §1.1: GPU model and count are not in the price feed; gpuhunt parses the
name (`ND(\\d+)isr_H200_v5 -> H200`, `NC(\\d+)adi?s_H100_v5 -> H100 NVL`) and SkyPilot maps
families (`standardNDSH100v5Family -> H100`). Counts below are Microsoft's published sizes
for each series (learn.microsoft.com/azure/virtual-machines/sizes, GPU-accelerated); the
fractional NVadsA10_v5 / NVv4 slices are the same fractions SkyPilot writes (0.167/0.333/0.5).
"""

from __future__ import annotations

import re

# Whole names first: flagship 8-GPU (and GB200 4-GPU) SKUs.
EXACT: dict[str, tuple[str, float]] = {
    "Standard_ND96isr_H100_v5": ("H100", 8.0),
    "Standard_ND96isr_H200_v5": ("H200", 8.0),
    "Standard_ND96is_MI300X_v5": ("MI300X", 8.0),
    "Standard_ND128isr_GB200_v6": ("GB200", 4.0),
    # the spelling the live feed returned in 2026 (a public price note quoting the API)
    "Standard_ND128isr_NDR_GB200_v6": ("GB200", 4.0),
    "Standard_ND96asr_v4": ("A100 40GB", 8.0),
    "Standard_ND96amsr_A100_v4": ("A100 80GB", 8.0),
    "Standard_ND40rs_v2": ("V100 32GB", 8.0),
}

# (pattern on the whole armSkuName, GPU, vCPU size -> GPUs). The size table is explicit so a
# size Microsoft never published is "unknown", not extrapolated.
FAMILIES: list[tuple[re.Pattern[str], str, dict[int, float]]] = [
    (re.compile(r"Standard_NC(\d+)adi?s_H100_v5"), "H100 NVL", {40: 1, 80: 2}),
    (re.compile(r"Standard_NC(\d+)ads_A100_v4"), "A100 80GB", {24: 1, 48: 2, 96: 4}),
    (re.compile(r"Standard_NC(\d+)as_T4_v3"), "T4", {4: 1, 8: 1, 16: 1, 64: 4}),
    (re.compile(r"Standard_NC(\d+)r?s_v3"), "V100", {6: 1, 12: 2, 24: 4}),
    (re.compile(r"Standard_NC(\d+)r?s_v2"), "P100", {6: 1, 12: 2, 24: 4}),
    (re.compile(r"Standard_NC(\d+)r?"), "K80", {6: 1, 12: 2, 24: 4}),
    (re.compile(r"Standard_ND(\d+)r?s"), "P40", {6: 1, 12: 2, 24: 4}),
    (re.compile(r"Standard_NV(\d+)adm?s_A10_v5"), "A10", {6: 1 / 6, 12: 1 / 3, 18: 1 / 2, 36: 1, 72: 2}),
    (re.compile(r"Standard_NV(\d+)as_v4"), "MI25", {4: 1 / 8, 8: 1 / 4, 16: 1 / 2, 32: 1}),
    (re.compile(r"Standard_NV(\d+)s_v3"), "M60", {12: 1, 24: 2, 48: 4}),
    (re.compile(r"Standard_NV(\d+)"), "M60", {6: 1, 12: 2, 24: 4}),
]

# What the GPU filter asks for: anything in these series that maps to nothing is an unknown
# GPU SKU (a new size or series), reported rather than guessed.
LOOKS_LIKE_GPU = re.compile(r"Standard_N[CDV]", re.IGNORECASE)


def gpu_for(arm_sku: str) -> tuple[str, float] | None:
    """(GPU, count) for a known GPU VM SKU, else None."""
    if arm_sku in EXACT:
        return EXACT[arm_sku]
    for pattern, gpu, sizes in FAMILIES:
        match = pattern.fullmatch(arm_sku)
        if match and int(match.group(1)) in sizes:
            return gpu, float(sizes[int(match.group(1))])
    return None
