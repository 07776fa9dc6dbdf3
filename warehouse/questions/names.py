"""The accelerator and platform names people type ('H100', 'h100', 'GB200', 'H100 SXM'), read as
catalog ids: `gpucalc prices GPU` and the `--platforms` of `compare` and `serve`.

One function, `meaning`, says what a typed name denotes: an exact platform id is that platform
(as it always was); anything else goes through the one GPU-name resolver every load uses
(sources/gpu_identity/), so 'H100' means here what it means in a price quote (H100-SXM), and
through it the platforms built from that accelerator. What cannot be read is one sentence
naming the closest ids, never a guess.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

import duckdb

from sources.gpu_identity import resolve_name
from sources.gpu_identity.names import parse_name
from warehouse.loading.identity import catalog as gpu_catalog
from warehouse.questions.whatif_inputs import WhatIfError

LISTS = "gpucalc list gpus / gpucalc list platforms"


class UnknownName(WhatIfError):
    """A name that denotes no accelerator or platform of the catalog, or several: one sentence."""


@dataclass(frozen=True)
class Meaning:
    """What a typed name denotes: one accelerator, and the platforms built from it."""

    typed: str
    gpu_id: str
    gpu_name: str
    platform_ids: tuple[str, ...]
    platform: str | None = None  # the platform id typed, when one was (any case)

    @property
    def exact_platform(self) -> bool:
        return self.platform is not None and self.platform == self.typed

    def sentence(self) -> str:
        """Which accelerator and platforms the name means, in one line."""
        if self.platform is not None:
            return f"{self.typed} means platform {self.platform}, built from {self.gpu_id}"
        which = (f"platform {self.platform_ids[0]}" if len(self.platform_ids) == 1
                 else f"platforms {', '.join(self.platform_ids)}" if self.platform_ids else None)
        if self.typed == self.gpu_id:
            return f"{self.typed} means {which}" if which else f"no platform in the catalog is built from {self.gpu_id}"
        if which is None:
            return f"{self.typed} means {self.gpu_id}, and no platform in the catalog is built from it"
        return f"{self.typed} means {self.gpu_id}: {which}"


def meaning(con: duckdb.DuckDBPyConnection, typed: str) -> Meaning:
    """The accelerator (and its platforms) a typed name denotes, or UnknownName in one sentence."""
    text = typed.strip()
    if not text:
        raise UnknownName(f"an empty name names no accelerator or platform ({LISTS})")
    platforms = con.execute("select platform_id, gpu_id from platform order by platform_id").fetchall()
    gpus = dict(con.execute("select gpu_id, name from gpu").fetchall())
    built_from = {}
    for platform_id, gpu_id in platforms:
        built_from.setdefault(gpu_id, []).append(platform_id)
    platform = next((p for p, _ in platforms if p == text), None) or next(
        (p for p, _ in platforms if p.lower() == text.lower()), None)
    if platform is not None:
        gpu_id = dict(platforms)[platform]
        return Meaning(text, gpu_id, gpus.get(gpu_id, gpu_id), (platform,), platform)
    gpu_id = next((g for g in gpus if g.lower() == text.lower()), None)
    if gpu_id is None:
        found = resolve_name(text, gpu_catalog(con))
        if found.gpu is None or found.gpu not in gpus:
            raise UnknownName(_not_read(text, found.unresolved, gpus, [p for p, _ in platforms]))
        gpu_id = found.gpu
    return Meaning(text, gpu_id, gpus[gpu_id], tuple(built_from.get(gpu_id, ())))


def platform_ids(con: duckdb.DuckDBPyConnection, typed: list[str]) -> tuple[list[str], list[str]]:
    """The platform ids a `--platforms` list means, in the order typed (each once), and a sentence
    for each name that was not a platform id as written ('H100 means H100-SXM: platform hgx-h100-8')."""
    ids: list[str] = []
    notes: list[str] = []
    for name in typed:
        meant = meaning(con, name)
        if not meant.platform_ids:
            raise UnknownName(f"{meant.sentence()}; `gpucalc list platforms` shows the platforms there are")
        if not meant.exact_platform:
            notes.append(meant.sentence())
        ids += [p for p in meant.platform_ids if p not in ids]
    return ids, notes


def _not_read(text: str, why: str | None, gpus: dict[str, str], platforms: list[str]) -> str:
    """The one sentence for a name that is no single accelerator: the variants it could be, or the closest ids."""
    reason = (why or "").removeprefix(f"'{text}': ").split("; ")[0]  # the rest speaks of a source's rows
    parsed = parse_name(text)
    variants = sorted(g for g in gpus if parsed.model and parse_name(g).model == parsed.model
                      and (parsed.form is None or parse_name(g).form == parsed.form))
    if reason.startswith("ambiguous") and len(variants) > 1:  # the model's variants the form typed leaves
        return f"{text!r} could be {_either(variants)}: type one of them ({LISTS})"
    said = (f"{text!r} is no accelerator or platform gpucalc knows"
            if not reason or reason.startswith("no catalog accelerator") else f"{text!r}: {reason}")
    closest = [*variants, *(i for i in _closest(text, [*sorted(gpus), *platforms]) if i not in variants)][:4]
    return f"{said}; closest: {', '.join(closest)} ({LISTS})" if closest else f"{said} ({LISTS})"


def _either(ids: list[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{', '.join(ids[:-1])} or {ids[-1]}"


def _key(text: str) -> str:
    return re.sub(r"[\s\-_./]+", "", text.lower())


def _closest(text: str, ids: list[str], most: int = 4) -> list[str]:
    """The ids nearest what was typed: those that hold it (or it them) and the most alike, nearest first."""
    key = _key(text)
    keys = {i: _key(i) for i in ids}
    alike = set(difflib.get_close_matches(key, list(keys.values()), n=most, cutoff=0.6))
    near = [i for i, k in keys.items() if k in alike or (len(k) > 2 and len(key) > 2 and (key in k or k in key))]
    return sorted(near, key=lambda i: -difflib.SequenceMatcher(None, key, keys[i]).ratio())[:most]
