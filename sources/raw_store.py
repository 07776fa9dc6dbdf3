"""Keep every payload exactly as received, so any day can be replayed without the network.

Layout: <raw>/<source>/<YYYY-MM-DD>/<name> plus <name>.meta.json with the URL, provider,
SHA-256, size, fetch time and the run that kept it. The sidecar is what lets the single
DuckDB writer index the payload (`raw_payload`) later without re-reading the network, and
lets replay hand the parser the same provider the fetch did.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from sources.base import Payload

META_SUFFIX = ".meta.json"


@dataclass(frozen=True)
class Kept:
    """One payload on disk and what its sidecar says about it."""

    source: str
    day: date
    name: str
    path: Path
    url: str
    provider: str | None
    sha256: str
    bytes: int
    fetched_at: datetime
    run_id: str | None


def save(payload: Payload, raw_dir: Path, day: date, run_id: str | None = None) -> Kept:
    """Write the body and its sidecar; a second save of the same name replaces both."""
    folder = raw_dir / payload.source / day.isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / payload.name
    # Write to a temporary name first: a crash mid-write must not leave a cut payload that a
    # later replay would parse as if it were what the source sent.
    partial = folder / (payload.name + ".partial")
    partial.write_bytes(payload.body)
    partial.replace(path)
    kept = Kept(
        source=payload.source,
        day=day,
        name=payload.name,
        path=path,
        url=payload.url,
        provider=payload.provider,
        sha256=hashlib.sha256(payload.body).hexdigest(),
        bytes=len(payload.body),
        fetched_at=datetime.now(UTC).replace(tzinfo=None),
        run_id=run_id,
    )
    meta = {
        "source": kept.source,
        "url": kept.url,
        "provider": kept.provider,
        "sha256": kept.sha256,
        "bytes": kept.bytes,
        "fetched_at": kept.fetched_at.isoformat(),
        "run_id": run_id,
    }
    (folder / (payload.name + META_SUFFIX)).write_text(json.dumps(meta, indent=1))
    return kept


def kept_day(raw_dir: Path, source: str, day: date) -> list[Kept]:
    """What is kept for `source` on `day`, in name order (empty if nothing)."""
    folder = raw_dir / source / day.isoformat()
    if not folder.is_dir():
        return []
    kept = []
    for path in sorted(folder.iterdir()):
        if path.name.endswith((META_SUFFIX, ".partial")) or not path.is_file():
            continue
        meta_path = folder / (path.name + META_SUFFIX)
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        size = path.stat().st_size
        # A file dropped in by hand has no sidecar: describe it from the bytes themselves.
        sha = meta.get("sha256") or hashlib.sha256(path.read_bytes()).hexdigest()
        fetched = meta.get("fetched_at")
        kept.append(
            Kept(
                source=source,
                day=day,
                name=path.name,
                path=path,
                url=meta.get("url", str(path)),
                provider=meta.get("provider"),
                sha256=sha,
                bytes=meta.get("bytes", size),
                fetched_at=datetime.fromisoformat(fetched) if fetched else _mtime(path),
                run_id=meta.get("run_id"),
            )
        )
    return kept


def as_payload(kept: Kept) -> Payload:
    return Payload(kept.source, kept.name, kept.path.read_bytes(), kept.url, kept.provider)


def load_day(raw_dir: Path, source: str, day: date) -> list[Payload]:
    """The payloads kept for `source` on `day`, in name order (empty if none)."""
    return [as_payload(k) for k in kept_day(raw_dir, source, day)]


def sources_on(raw_dir: Path, day: date) -> list[str]:
    """Every source that has payloads kept for `day`."""
    if not raw_dir.is_dir():
        return []
    return sorted(p.name for p in raw_dir.iterdir() if kept_day(raw_dir, p.name, day))


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None)
