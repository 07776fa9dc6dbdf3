"""What a source module is: fetch raw payloads, then parse them into contract frames.

A source never writes DuckDB and never imports Prefect. `fetch` talks to the network and
returns payloads exactly as received; `parse` turns one payload into rows that match a
contract, plus the rows it had to reject, without touching the network again. That split is
what lets `gpucalc ingest` and `gpucalc replay` run the same parser on a saved file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

import polars as pl


class SourceError(Exception):
    """A whole payload or fetch is unusable (down, truncated, schema changed)."""

    def __init__(self, source: str, message: str):
        super().__init__(f"[{source}] {message}")
        self.source = source
        self.message = message


class MissingKey(SourceError):
    """The source needs an API key that is not in the environment: skip, do not fail."""


@dataclass(frozen=True)
class Payload:
    """One response or file exactly as received."""

    source: str
    name: str  # file name to keep it under data/raw/<source>/<date>/
    body: bytes
    url: str  # where it came from (URL, or the local path for ingest)
    provider: str | None = None  # for catalogs that describe one provider (SkyPilot vms.csv)


@dataclass(frozen=True)
class Reject:
    """A row a parser could not turn into a contract row, and why."""

    source: str
    source_row: int
    rule: str  # short machine name, e.g. "unparseable_price"
    detail: str  # human sentence naming the problem
    row: dict = field(default_factory=dict)
    payload: str | None = None  # the kept payload it came from ("<source>/<day>/<name>"), set on load


@dataclass
class Parsed:
    rows: pl.DataFrame
    rejects: list[Reject] = field(default_factory=list)


@dataclass(frozen=True)
class SourceSpec:
    """A source as the flows and `gpucalc sources` see it."""

    name: str
    kind: str  # "prices" | "benchmarks"
    description: str
    key_env: str | None  # environment variable holding the API key, None if keyless
    fetch: Callable[..., list[Payload]]  # fetch(session, observed_at) -> payloads
    parse: Callable[..., Parsed]  # parse(payload, observed_at) -> Parsed
    live: bool = True  # False for file-only sources (quotes file, user runs)
    default_provider: str | None = None
    # Largest payload the parser accepts; a bigger one is refused before it is read, so
    # memory stays bounded (docs/sources.md).
    max_bytes: int = 64 * 1024 * 1024
    # Sources whose payloads are built from a local path rather than read as one file
    # (an MLPerf results checkout): path -> payloads, as the live fetch would keep them.
    from_path: Callable[..., list[Payload]] | None = None
    # Sources whose local files describe one provider: (file, payload) -> why the file is not
    # `payload.provider`'s (one sentence), or None; `ingest` refuses such a file before keeping it.
    wrong_provider: Callable[..., str | None] | None = None


def file_only(name: str, ingest_as: str | None = None) -> Callable[..., list[Payload]]:
    """The `fetch` of a source that only comes from files: it says how to load one instead."""

    def fetch(session, observed_at: date) -> list[Payload]:
        raise SourceError(name, f"{name} is file-only: use gpucalc ingest {ingest_as or name} --file PATH")

    return fetch


def file_ref(payload: Payload) -> str:
    """A user file's reference is its name: the same file ingested from another folder is the
    same observation, and the bytes are kept under that name in data/raw/."""
    from pathlib import PurePath

    return PurePath(payload.url).name or payload.url
