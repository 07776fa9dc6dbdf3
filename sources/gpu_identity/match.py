"""Narrowing a model's catalog variants to the one a row's facts denote (form, memory, type).

The policy is in `sources.gpu_identity`; this holds the comparisons: memory within a
tolerance with the nearest size winning, a form factor matching exactly or a variant that
has none, and the default variant an alias names when only the form factor is left open.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sources.gpu_identity.names import FORM_LABELS, ParsedName, display_name

# Memory stated by a source differs from the datasheet: 80 GB cards report 81920 MiB, H200
# 141 vs 143 GB, H100 NVL 94 vs 96, B200 180 usable vs 192 physical. Within 10 % (relative)
# a candidate matches; the nearest one wins over a farther one.
MEMORY_TOLERANCE = math.log(1.10)
NEAREST_SLACK = 0.03


@dataclass(frozen=True)
class CatalogGpu:
    """One catalog accelerator as the resolver compares it."""

    gpu_id: str
    model: str | None
    form: str | None
    memories: tuple[float, ...]  # physical and usable, GB
    memory_type: str | None


def memory_distance(gpu: CatalogGpu, memory: float) -> float:
    if memory <= 0 or not gpu.memories:
        return math.inf
    return min(abs(math.log(memory / m)) for m in gpu.memories)


def consistent(gpu: CatalogGpu, memory: float | None, form: str | None) -> bool:
    """An alias holds unless the row's own facts say otherwise (an 80 GB 'A100 SXM4')."""
    if memory is not None and memory_distance(gpu, memory) > MEMORY_TOLERANCE:
        return False
    return form is None or gpu.form is None or gpu.form == form


def narrow(
    variants: list[CatalogGpu], defaults: dict[str, str], parsed: ParsedName, memory: float | None, form: str | None
) -> tuple[str | None, str | None, str | None]:
    """(gpu, how, None) or (None, None, why): which of a model's `variants` the facts leave.

    `defaults` maps an alias that names the model without a form factor to its gpu_id.
    """
    asked = display_name(parsed.model, form) or "(no model)"
    if not variants:
        return None, None, f"no catalog accelerator '{asked}' (add it to gpu.csv)"
    candidates = variants
    if form is not None:
        candidates = [g for g in variants if g.form == form] or [g for g in variants if g.form is None]
        if not candidates:
            model, listing = display_name(parsed.model), _listing(variants)
            return None, None, f"no {FORM_LABELS[form]} variant of {model} in the catalog ({listing})"
    if memory is not None:
        distances = {g.gpu_id: memory_distance(g, memory) for g in candidates}
        fitting = [g for g in candidates if distances[g.gpu_id] <= MEMORY_TOLERANCE]
        if not fitting:
            return None, None, (f"{memory:g} GB per GPU matches no catalog {asked} ({_listing(candidates)}); "
                                "check that the source reports memory per GPU")
        best = min(distances[g.gpu_id] for g in fitting)
        candidates = [g for g in fitting if distances[g.gpu_id] <= best + NEAREST_SLACK]
    if parsed.memory_type is not None:
        candidates = [g for g in candidates if g.memory_type == parsed.memory_type] or candidates
    how = f"name '{parsed.model}'" + (f" {FORM_LABELS[form]}" if form else "") + (
        f" + {memory:g} GB" if memory is not None else "")
    if len(candidates) == 1:
        return candidates[0].gpu_id, how, None
    default = _default_variant(defaults, candidates)
    if default is not None:
        return default[1], f"{how}, default alias '{default[0]}'", None
    missing = "no form factor" if memory is not None else "no memory or form factor"
    if form is not None:
        missing = "no memory"
    return None, None, f"ambiguous ({', '.join(sorted(g.gpu_id for g in candidates))}); the row gives {missing}"


def _default_variant(defaults: dict[str, str], candidates: list[CatalogGpu]) -> tuple[str, str] | None:
    """The variant an alias without a form factor names, if the candidates differ only in form."""
    sizes = [max(g.memories) for g in candidates if g.memories]
    if not sizes or max(sizes) / min(sizes) > math.exp(MEMORY_TOLERANCE):
        return None  # a default never picks a memory size
    ids = {g.gpu_id for g in candidates}
    named = {(alias, gpu) for alias, gpu in defaults.items() if gpu in ids}
    if len({gpu for _, gpu in named}) != 1:
        return None
    return min(named)


def _listing(gpus: list[CatalogGpu]) -> str:
    parts = []
    for g in gpus:
        size = f" {max(g.memories):g} GB" if g.memories else ""
        parts.append(f"{g.gpu_id}{size}")
    return ", ".join(parts)
