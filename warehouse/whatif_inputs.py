"""What the user asks `gpucalc whatif` about: platforms, GPU counts, role splits and prices."""

from __future__ import annotations

import re
from dataclasses import dataclass


class WhatIfError(ValueError):
    """An input the question cannot be answered with (unknown platform, bad price, ...)."""


@dataclass(frozen=True)
class Price:
    """How a side is priced: relative to the baseline per GPU-hour, absolute per GPU-hour or
    per system-hour, or from the warehouse's latest quotes ("market")."""

    kind: str  # relative | gpu_hour | system_hour | market
    value: float | None = None

    @classmethod
    def parse(cls, text: str) -> Price:
        t = text.strip().lower().replace(" ", "")
        if t in ("market", "quotes", "warehouse"):
            return cls("market")
        patterns = [
            (r"^([0-9.]+)x$", "relative"),
            (r"^\$?([0-9.]+)/(gpu-?h|gpu-?hour|gpuh)$", "gpu_hour"),
            (r"^\$?([0-9.]+)/(system-?h|system-?hour|node-?h|node-?hour)$", "system_hour"),
        ]
        for pattern, kind in patterns:
            match = re.match(pattern, t)
            if match:
                return cls(kind, float(match.group(1)))
        raise WhatIfError(
            f"price {text!r}: use '3.4x' (per GPU, relative to the baseline), '5.20/gpu-h', '40/system-h' or 'market'"
        )


@dataclass(frozen=True)
class SideSpec:
    platform_id: str
    n_gpus: int | None = None
    split: str | None = None  # "3+1" for role pipelines
    price: Price | None = None

    @classmethod
    def parse(cls, text: str) -> SideSpec:
        """PLATFORM[:N][/SPLIT][@PRICE], e.g. hgx-b200-8:4@3.4x or ws-rtxpro6000-4:4/3+1."""
        price = None
        if "@" in text:
            text, price_text = text.split("@", 1)
            price = Price.parse(price_text)
        split = None
        if "/" in text:
            text, split = text.split("/", 1)
        platform, _, count = text.partition(":")
        if count and not count.isdigit():
            raise WhatIfError(f"GPU count {count!r} in {text!r} is not a whole number")
        return cls(platform.strip(), int(count) if count else None, split, price)
