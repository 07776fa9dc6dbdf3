"""Keep every payload exactly as received, so any day can be replayed without the network.

Layout: <raw>/<source>/<YYYY-MM-DD>/<name> plus <name>.meta.json with the URL, provider,
SHA-256 and fetch time.
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
class StoredPayload:
    path: Path
    sha256: str
    bytes: int
    fetched_at: datetime


def save(payload: Payload, raw_dir: Path, day: date) -> StoredPayload:
    folder = raw_dir / payload.source / day.isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / payload.name
    path.write_bytes(payload.body)
    digest = hashlib.sha256(payload.body).hexdigest()
    fetched_at = datetime.now(UTC).replace(tzinfo=None)
    meta = {
        "source": payload.source,
        "url": payload.url,
        "provider": payload.provider,
        "sha256": digest,
        "bytes": len(payload.body),
        "fetched_at": fetched_at.isoformat(),
    }
    (folder / (payload.name + META_SUFFIX)).write_text(json.dumps(meta, indent=1))
    return StoredPayload(path, digest, len(payload.body), fetched_at)


def load_day(raw_dir: Path, source: str, day: date) -> list[Payload]:
    """The payloads kept for `source` on `day`, in name order (empty if none)."""
    folder = raw_dir / source / day.isoformat()
    if not folder.is_dir():
        return []
    payloads = []
    for path in sorted(folder.iterdir()):
        if path.name.endswith(META_SUFFIX):
            continue
        meta_path = folder / (path.name + META_SUFFIX)
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        payloads.append(
            Payload(
                source=source,
                name=path.name,
                body=path.read_bytes(),
                url=meta.get("url", str(path)),
                provider=meta.get("provider"),
            )
        )
    return payloads


def sources_on(raw_dir: Path, day: date) -> list[str]:
    """Every source that has payloads kept for `day`."""
    if not raw_dir.is_dir():
        return []
    return sorted(p.name for p in raw_dir.iterdir() if (p / day.isoformat()).is_dir())
