"""Every source gpucalc knows, by name, and how to parse what was kept of it on a day."""

from __future__ import annotations

import importlib
from datetime import date
from functools import cache
from pathlib import Path

import polars as pl

from sources import raw_store
from sources.base import Parsed, SourceError, SourceSpec

# Module per source; each exposes SPEC. Order is the order `gpucalc sources` lists them.
SOURCE_MODULES = (
    "skypilot",
    "azure_retail",
    "aws_pricelist",
    "vast",
    "runpod",
    "lambda_cloud",
    "mlperf",
    "quotes_file",
    "user_runs",
)


@cache
def all_specs() -> dict[str, SourceSpec]:
    specs = {}
    for module_name in SOURCE_MODULES:
        module = importlib.import_module(f"sources.{module_name}")
        specs[module.SPEC.name] = module.SPEC
    return specs


def spec_for(name: str) -> SourceSpec:
    specs = all_specs()
    if name not in specs:
        raise KeyError(f"unknown source '{name}'; known: {', '.join(specs)}")
    return specs[name]


def live_sources() -> list[str]:
    return [name for name, spec in all_specs().items() if spec.live]


def parse_payloads(name: str, payloads, day: date) -> tuple[Parsed | None, str]:
    """Parse payloads of one source; a payload that fails only fails itself."""
    spec = spec_for(name)
    frames, rejects, problems = [], [], []
    for payload in payloads:
        try:
            parsed = spec.parse(payload, day)
        except SourceError as exc:
            problems.append(f"{payload.name}: {exc.message}")
            continue
        frames.append(parsed.rows)
        rejects.extend(parsed.rejects)
    if not frames:
        return None, "; ".join(problems) or "no payloads kept for this day"
    return Parsed(pl.concat(frames, how="vertical_relaxed"), rejects), "; ".join(problems)


def parse_kept_day(name: str, raw_dir: Path, day: date) -> tuple[Parsed | None, str]:
    return parse_payloads(name, raw_store.load_day(raw_dir, name, day), day)
