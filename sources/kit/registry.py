"""Every source gpucalc knows, by name, and how to parse what was kept of it on a day."""

from __future__ import annotations

import importlib
import logging
import re
from dataclasses import dataclass, replace
from datetime import date
from functools import cache

import polars as pl

from sources.kit.raw_store import UnsafeName, check_name, payload_id
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec

log = logging.getLogger(__name__)

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
    "fsdl",
    "cloud_gpus_com",
    "ec2instances_info",
)


@cache
def all_specs() -> dict[str, SourceSpec]:
    specs = {}
    for module_name in SOURCE_MODULES:
        module = importlib.import_module(f"sources.{module_name}")
        specs[module.SPEC.name] = module.SPEC
    return specs


# Short names people type for the file-only sources (`gpucalc ingest runs --file runs.csv`).
ALIASES = {"runs": "user_runs", "quotes": "quotes_file"}


# How the live fetch names a payload that describes one provider, so an ingested copy of it
# replaces that payload under raw/ instead of sitting beside it and loading twice on replay.
LIVE_NAMES = {"skypilot": "{provider}_vms.csv"}
PROVIDER_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class UnknownSource(ValueError):
    """A source name gpucalc does not know (or cannot use the way it was asked to)."""


def resolve(name: str) -> str:
    """The canonical source name for `name` or one of its aliases."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in all_specs():
        aliases = ", ".join(f"{a} = {n}" for a, n in ALIASES.items())
        raise UnknownSource(f"unknown source '{name}'; known: {', '.join(all_specs())} (aliases: {aliases})")
    return key


def spec_for(name: str) -> SourceSpec:
    return all_specs()[resolve(name)]


def live_sources() -> list[str]:
    return [name for name, spec in all_specs().items() if spec.live]


def pick_live(names: list[str] | None) -> list[str]:
    """Validate a `--sources` pick (default: every live source), keeping the order given."""
    if not names:
        return live_sources()
    picked: list[str] = []
    for name in names:
        canonical = resolve(name)
        if not all_specs()[canonical].live:
            # A file-only source has nothing to fetch; saying so beats a "failed" status tonight.
            raise UnknownSource(f"'{name}' is file-only: load it with `gpucalc ingest {name} --file PATH`")
        if canonical not in picked:
            picked.append(canonical)
    return picked


def ingest_name(name: str, filename: str, provider: str | None) -> str:
    """The name a local file is kept under in raw/<source>/<date>/ (a plain name, checked)."""
    pattern = LIVE_NAMES.get(name)
    if pattern and provider:
        return check_name("kept file name", pattern.format(provider=check_provider(provider)))
    return check_name("file name", filename)


def check_provider(provider: str) -> str:
    """A provider named on the command line, lower-cased; it may name a file, so it must be plain."""
    value = provider.strip().lower()
    if not PROVIDER_NAME.match(value):
        raise UnsafeName(
            f"provider {provider!r} is not a provider name: use lower-case letters, digits and . _ - "
            "(e.g. aws, gcp, lambda)"
        )
    return value


def parse_one(name: str, payload: Payload, day: date) -> tuple[Parsed | None, str]:
    """Parse one payload; (None, why) when nothing in it can be used."""
    spec = spec_for(name)
    if len(payload.body) > spec.max_bytes:
        # Refused before parsing: memory stays bounded whatever the file holds.
        return None, f"{len(payload.body):,} bytes is over the {spec.max_bytes:,}-byte limit for {name} payloads"
    try:
        return spec.parse(payload, day), ""
    except SourceError as exc:
        return None, exc.message
    except Exception as exc:  # a parser bug on an unforeseen payload must not sink the other sources
        log.exception("%s: parser crashed on %s", name, payload.name)
        return None, f"parser failed unexpectedly ({type(exc).__name__}: {str(exc)[:200]})"


@dataclass
class ParsedDay:
    """What the payloads one source kept on a day parsed to, and which payloads those were."""

    parsed: Parsed | None  # None when no payload could be read
    problems: list[tuple[str, str]]  # (payload id, why it could not be read)
    window: list[str]  # ids of the payloads that parsed: the rows a load of them replaces


def parse_payloads(name: str, payloads: list[Payload], day: date) -> ParsedDay:
    """Parse payloads of one source kept on `day`; a payload that fails only fails itself.

    Each row and reject is stamped with the id of the payload it came from, so the load
    replaces exactly the rows those payloads produced before.
    """
    frames, rejects, problems, window = [], [], [], []
    for payload in payloads:
        ident = payload_id(name, day, payload.name)
        parsed, problem = parse_one(name, payload, day)
        if parsed is None:
            problems.append((ident, problem if problem.startswith(payload.name) else f"{payload.name}: {problem}"))
            continue
        window.append(ident)
        frames.append(parsed.rows.with_columns(pl.lit(ident, dtype=pl.String).alias("payload")))
        # Row numbers count within one payload; with several kept (clouds, regions, pages,
        # files) the detail must say which one the row is in.
        rejects.extend(replace(r, detail=f"{payload.name}: {r.detail}", payload=ident) for r in parsed.rejects)
    if not frames:
        return ParsedDay(None, problems or [("", "no payloads kept for this day")], window)
    return ParsedDay(Parsed(pl.concat(frames, how="vertical_relaxed"), rejects), problems, window)
