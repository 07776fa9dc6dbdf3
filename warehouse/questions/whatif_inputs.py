"""What the user asks the question commands (whatif, compare, serve) about: platforms, GPU counts,
role layouts, prices, the price basis, the precision and the ownership assumptions, each checked
before any work is done; and the one way an assumption is overridden in a private copy."""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

from sources.kit.contracts import PRICING_MODELS


class WhatIfError(ValueError):
    """An input the question cannot be answered with (unknown platform, bad price, ...)."""


SIDE_SYNTAX = (
    "PLATFORM[:N][/LAYOUT][@PRICE], LAYOUT = P+C (P target GPUs, C drafter GPUs) or 'shared' (target and "
    "drafter on every GPU); drafters on another GPU type: TARGETS+DRAFTERS, e.g. hgx-b200-8:4+l40s-8:2"
)


def positive(name: str, value: float | None) -> None:
    """A count, rate, duration or price that must be above zero (None: not given)."""
    if value is not None and not value > 0:
        raise WhatIfError(f"{name} must be above zero, got {value:g}")


def check_numbers(measured: float | None, measured_days: float | None, units_per_token: float | None) -> None:
    """The measured rate, the measured duration and the draft positions per token, if given."""
    positive("--measured (tokens/s)", measured)
    positive("--measured-days", measured_days)
    positive("--units-per-token", units_per_token)


@dataclass(frozen=True)
class Price:
    """How a side is priced: relative to the baseline per GPU-hour, absolute per GPU-hour or
    per system-hour, or from the warehouse's estimates on the asked basis ("market")."""

    kind: str  # relative | gpu_hour | system_hour | market
    value: float | None = None

    @classmethod
    def parse(cls, text: str) -> Price:
        t = text.strip().lower().replace(" ", "")
        if t in ("market", "quotes", "warehouse"):
            return cls("market")
        patterns = [
            (r"^(-?[0-9.]+)x$", "relative"),
            (r"^\$?(-?[0-9.]+)/(gpu-?h|gpu-?hour|gpuh)$", "gpu_hour"),
            (r"^\$?(-?[0-9.]+)/(system-?h|system-?hour|node-?h|node-?hour)$", "system_hour"),
        ]
        for pattern, kind in patterns:
            match = re.match(pattern, t)
            if match:
                try:
                    value = float(match.group(1))
                except ValueError:
                    break
                positive(f"price {text!r}", value)
                return cls(kind, value)
        raise WhatIfError(
            f"price {text!r}: use '3.4x' (per GPU, relative to the baseline), '5.20/gpu-h', '40/system-h' or 'market'"
        )

    @property
    def given(self) -> bool:
        return self.kind != "market"


@dataclass(frozen=True)
class SideSpec:
    platform_id: str
    n_gpus: int | None = None
    split: str | None = None  # "3+1" (targets + drafters) or "shared"; None: the best layout
    price: Price | None = None
    drafter: SideSpec | None = None  # drafters on another platform (targets are this spec)

    @classmethod
    def parse(cls, text: str) -> SideSpec:
        """PLATFORM[:N][/LAYOUT][@PRICE], or TARGETS+DRAFTERS for drafters on another GPU type:
        hgx-b200-8:4@3.4x, ws-rtxpro6000-4:4/3+1, hgx-b200-8:4/shared, hgx-b200-8:4+l40s-8:2."""
        # a '+' followed by a letter starts the drafters' platform ('3+1' is a split)
        parts = re.split(r"\+(?=[A-Za-z])", text.strip())
        if len(parts) > 2:
            raise WhatIfError(f"side {text!r}: at most one drafter platform ({SIDE_SYNTAX})")
        targets = cls._one(parts[0])
        if len(parts) == 1:
            return targets
        drafters = cls._one(parts[1])
        if targets.split or drafters.split:
            raise WhatIfError(
                f"side {text!r}: with drafters on another platform every GPU of the first is a target and every "
                "GPU of the second a drafter; give counts, not a /LAYOUT"
            )
        return cls(targets.platform_id, targets.n_gpus, None, targets.price,
                   cls(drafters.platform_id, drafters.n_gpus or 1, None, drafters.price))

    @classmethod
    def _one(cls, text: str) -> SideSpec:
        price = None
        if "@" in text:
            text, price_text = text.split("@", 1)
            price = Price.parse(price_text)
        split = None
        if "/" in text:
            text, split = text.split("/", 1)
            split = split.strip().lower()
            if split != "shared" and not re.fullmatch(r"[0-9]+\+[0-9]+", split):
                raise WhatIfError(f"layout {split!r} in {text!r}: use P+C (e.g. 3+1) or 'shared'")
        platform, _, count = text.partition(":")
        if not platform.strip():
            raise WhatIfError(f"side {text!r} names no platform ({SIDE_SYNTAX})")
        if count and not count.strip().isdigit():
            raise WhatIfError(f"GPU count {count!r} in {text!r} is not a whole number")
        n = int(count) if count else None
        positive(f"GPU count in {text!r}", n)
        if split and split != "shared":
            p, c = (int(x) for x in split.split("+"))
            positive(f"target GPUs in {split!r}", p)
            positive(f"drafter GPUs in {split!r}", c)
            if n is not None and p + c != n:
                raise WhatIfError(f"split {split} in {text!r} uses {p + c} GPUs, not {n}")
            n = p + c  # a split says how many GPUs
        return cls(platform.strip(), n, split, price)

    @property
    def label(self) -> str:
        """The side as typed, without its price."""
        head = self.platform_id + (f":{self.n_gpus}" if self.n_gpus else "") + (f"/{self.split}" if self.split else "")
        return head + (f"+{self.drafter.label}" if self.drafter else "")


PRICING_CHOICES = (*PRICING_MODELS, "all")


DTYPES = ("fp4", "fp8", "bf16")


def check_dtype(dtype: str | None) -> None:
    """A precision to run in (None: each side's own)."""
    if dtype is not None and dtype not in DTYPES:
        raise WhatIfError(f"--dtype {dtype!r}: use {', '.join(DTYPES[:-1])} or {DTYPES[-1]}")


def apply_assumptions(con: duckdb.DuckDBPyConnection, overrides: dict[str, float], by: str) -> None:
    """Replace assumption rows in a private copy (the nightly warehouse keeps the catalog's)."""
    for name, value in overrides.items():
        con.execute("delete from assumption where name = ?", [name])
        con.execute("insert into assumption (name, value, unit, source) values (?, ?, '', ?)", [name, value, by])


def pricing_bases(pricing: str) -> tuple[str, ...]:
    """The price bases to answer on: one, or all of them side by side (never mixed)."""
    if pricing not in PRICING_CHOICES:
        raise WhatIfError(f"pricing {pricing!r}: use one of {', '.join(PRICING_CHOICES)}")
    return PRICING_MODELS if pricing == "all" else (pricing,)


# Below 1% busy an owned GPU-hour costs over 100x its full-use price: no longer a purchase question.
MIN_UTILIZATION = 0.01

# whatif flag -> the row of the `assumption` table it overrides, and its lower bound
OWNERSHIP = {
    "years": ("ownership_years", "above zero"),
    "utilization": ("ownership_utilization", f"a fraction from {MIN_UTILIZATION:g} to 1"),
    "pue": ("pue", "at least 1"),
    "usd_per_kwh": ("usd_per_kwh", "zero or more"),
    "colo_usd_per_kw_month": ("colo_usd_per_kw_month", "zero or more"),
}


def ownership_overrides(**given: float | None) -> dict[str, float]:
    """The ownership assumptions the user set, by assumption name, each checked."""
    ok = {
        "years": lambda v: v > 0,
        "utilization": lambda v: MIN_UTILIZATION <= v <= 1,
        "pue": lambda v: v >= 1,
        "usd_per_kwh": lambda v: v >= 0,
        "colo_usd_per_kw_month": lambda v: v >= 0,
    }
    out = {}
    for flag, value in given.items():
        if value is None:
            continue
        name, bound = OWNERSHIP[flag]
        if not ok[flag](value):
            raise WhatIfError(f"--{flag.replace('_', '-')} must be {bound}, got {value:g}")
        out[name] = value
    return out
