"""Keep every payload exactly as received, so any day can be replayed without the network.

Layout: <raw>/<source>/<YYYY-MM-DD>/<name> plus <name>.meta.json with the URL, provider,
SHA-256, size, fetch time and the run that kept it. The sidecar is what lets the single
DuckDB writer index the payload (`raw_payload`) later without re-reading the network, and
lets replay hand the parser the same provider the fetch did.

A payload kept under a name that a later save fills with other bytes is never lost: it and
its sidecar move to <day>/replaced/<UTC time>/, where replay does not look; moving them back
and replaying the day loads it again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from sources.kit.spec import Payload

META_SUFFIX = ".meta.json"
REPLACED_DIR = "replaced"
# Every path component under raw/ comes from a source name, a provider or a file name, i.e.
# from data or flags: it must be one plain name, never a path ("../x", "/etc", "a/b").
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$")
log = logging.getLogger(__name__)


class UnsafeName(ValueError):
    """A name that would not stay one plain file or folder name under raw/."""


def check_name(what: str, value: str) -> str:
    """`value` if it is safe as one path component, else UnsafeName saying why."""
    if not isinstance(value, str) or not SAFE_NAME.match(value) or ".." in value:
        raise UnsafeName(
            f"{what} {value!r} is not a plain name: use letters, digits and . _ + - only "
            "(no slashes, no '..', at most 200 characters)"
        )
    return value


def payload_id(source: str, day: date, name: str) -> str:
    """A kept payload's identity everywhere (rows, rejects, raw_payload): <source>/<day>/<name>."""
    return f"{source}/{day.isoformat()}/{name}"


def write_atomically(path: Path, body: bytes) -> None:
    """Write to a temporary name, flush, then rename: a crash never leaves a cut file."""
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException:  # a full disk, say: no cut file left to fill it further
        partial.unlink(missing_ok=True)
        raise


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
    kept_sha256: str | None = None  # what the sidecar recorded, when the bytes no longer match it
    set_aside: Path | None = None  # save: where the different payload this one replaced was moved

    def changed_since_kept(self) -> str | None:
        """Why this payload is not what was kept (edited by hand, cut by a disk), or None."""
        if self.kept_sha256 is None:
            return None
        provider = f" --provider {self.provider}" if self.provider else ""
        return (f"{self.name} changed since it was kept on {self.fetched_at:%Y-%m-%d %H:%M} UTC (sha256 "
                f"{self.kept_sha256[:16]} then, {self.sha256[:16]} now): not loaded, the rows it gave stay; "
                f"to load it as it is now, `gpucalc ingest {self.source} --file {self.path}{provider} "
                f"--date {self.day}`")


def save(payload: Payload, raw_dir: Path, day: date, run_id: str | None = None) -> Kept:
    """Write the body and its sidecar; a second save of the same name replaces both, and sets
    what it replaces aside when the bytes differ (`Kept.set_aside`)."""
    folder = raw_dir / check_name("source", payload.source) / day.isoformat()
    path = folder / check_name("payload name", payload.name)
    folder.mkdir(parents=True, exist_ok=True)
    set_aside = _set_aside(path, payload.body)
    # A crash mid-write must not leave a cut payload that a later replay would parse as if
    # it were what the source sent, nor a cut sidecar that no replay could read.
    try:
        write_atomically(path, payload.body)
    except BaseException:  # a full disk, say: the payload kept before stays where it was
        if set_aside is not None:
            _move_back(set_aside, path)
        raise
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
        set_aside=set_aside,
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
    write_atomically(folder / (payload.name + META_SUFFIX), json.dumps(meta, indent=1).encode())
    return kept


def _set_aside(path: Path, body: bytes) -> Path | None:
    """Move a kept payload that `body` would overwrite with other bytes, and its sidecar, to
    replaced/<UTC time>/ beside it; returns its new path (None: nothing there, or the same bytes)."""
    if not path.is_file() or _same_bytes(path, body):
        return None
    folder = path.parent / REPLACED_DIR / datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    folder.mkdir(parents=True, exist_ok=True)
    sidecar = path.with_name(path.name + META_SUFFIX)
    if sidecar.exists():
        os.replace(sidecar, folder / sidecar.name)
    os.replace(path, folder / path.name)
    return folder / path.name


def _move_back(aside: Path, path: Path) -> None:
    for moved in aside.parent.iterdir():
        os.replace(moved, path.parent / moved.name)
    aside.parent.rmdir()


def _same_bytes(path: Path, body: bytes) -> bool:
    if path.stat().st_size != len(body):
        return False
    with open(path, "rb") as handle:  # in chunks: a kept payload is not read whole to compare it
        return hashlib.file_digest(handle, "sha256").digest() == hashlib.sha256(body).digest()


def kept_day(raw_dir: Path, source: str, day: date, max_bytes: int | None = None) -> list[Kept]:
    """What is kept for `source` on `day`, in name order (empty if nothing); a payload over
    `max_bytes` is left out without being read (`oversized` names it)."""
    folder = raw_dir / source / day.isoformat()
    return [_describe(source, day, path) for path in _payload_files(folder)
            if max_bytes is None or path.stat().st_size <= max_bytes]


def oversized(raw_dir: Path, source: str, day: date, max_bytes: int) -> list[tuple[str, int]]:
    """(name, bytes) of each payload kept for `source` on `day` that is over `max_bytes`, by its size alone."""
    sizes = [(path.name, path.stat().st_size) for path in _payload_files(raw_dir / source / day.isoformat())]
    return [(name, size) for name, size in sizes if size > max_bytes]


def kept_origins(raw_dir: Path, source: str, day: date) -> dict[str, str]:
    """Each payload kept for `source` on `day`, by name: the URL or path it came from, from its
    sidecar (its own path when it has none); no payload is read."""
    return {path.name: _text(_sidecar(path.with_name(path.name + META_SUFFIX)), "url") or str(path)
            for path in _payload_files(raw_dir / source / day.isoformat())}


def _payload_files(folder: Path) -> list[Path]:
    """The payload files in a day's folder, in name order: no sidecars, partial writes or folders."""
    if not folder.is_dir():
        return []
    return [path for path in sorted(folder.iterdir())
            if not path.name.endswith((META_SUFFIX, ".partial")) and path.is_file()]


def _describe(source: str, day: date, path: Path) -> Kept:
    meta = _sidecar(path.with_name(path.name + META_SUFFIX))
    size = path.stat().st_size
    # A file dropped in by hand has no sidecar: it is described from the bytes themselves.
    sha, recorded = hashlib.sha256(path.read_bytes()).hexdigest(), _text(meta, "sha256")
    return Kept(
        source=source,
        day=day,
        name=path.name,
        path=path,
        url=_text(meta, "url") or str(path),
        provider=_text(meta, "provider"),
        sha256=sha,
        bytes=meta["bytes"] if isinstance(meta.get("bytes"), int) else size,
        fetched_at=_time(_text(meta, "fetched_at")) or _mtime(path),
        run_id=_text(meta, "run_id"),
        kept_sha256=recorded if recorded not in (None, sha) else None,
    )


def _text(meta: dict, key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) and value else None


def _time(text: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _sidecar(meta_path: Path) -> dict:
    """What a sidecar says, or nothing when it is missing or unreadable (the bytes still are)."""
    if not meta_path.exists():
        return {}
    try:
        meta = json.loads(meta_path.read_text())
        return meta if isinstance(meta, dict) else {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable sidecar %s (%s); describing the payload from its bytes", meta_path, exc)
        return {}


def as_payload(kept: Kept) -> Payload:
    return Payload(kept.source, kept.name, kept.path.read_bytes(), kept.url, kept.provider)


def sources_on(raw_dir: Path, day: date) -> list[str]:
    """Every source that has payloads kept for `day` (by listing their folders, reading none)."""
    if not raw_dir.is_dir():
        return []
    return sorted(p.name for p in raw_dir.iterdir() if _payload_files(p / day.isoformat()))


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(tzinfo=None)
