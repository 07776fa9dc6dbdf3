"""What gpucalc can recompute, kept on disk by a digest of everything it depends on.

Four kinds, each slow to recompute (docs/scale.md): validation results (warehouse/loading/validation.py;
the bundled catalog and benchmarks rarely change), chart PNGs (reports/chart_png.py), report
pages' HTML (reports/html.py; most pages the same night to night) and the topology models'
tables (warehouse/build/topology_cache.py). The caller's key covers the inputs and the code
that turns them into the result, so an entry is valid wherever it is found: for any warehouse,
any night. One file per entry in `settings.cache_dir()/<kind>/` (the layouts' tables: one
folder), written atomically; a missing or unreadable entry is a miss and its caller recomputes
(and checks what it read). Entries unused for KEEP_DAYS are deleted when a new one is written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from warehouse.store import settings

KEEP_DAYS = 35


def read(kind: str, key: str) -> bytes | None:
    path = _path(kind, key)
    if path is None:
        return None
    try:
        content = path.read_bytes()
        os.utime(path)  # in use: not pruned
    except OSError:
        return None
    return content


def write(kind: str, key: str, content: bytes) -> None:
    """Keep `content` under `key`; a cache that cannot be written is only a cache not kept."""
    path = _path(kind, key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as out:
            out.write(content)
        os.replace(out.name, path)  # readers see the old entry or the whole new one
        _prune(path.parent)
    except OSError:
        return


def folder(kind: str, key: str) -> Path | None:
    """The folder an entry kept by `write_folder` is, or None."""
    path = _path(kind, key)
    if path is None or not path.is_dir():
        return None
    try:
        os.utime(path)  # in use: not pruned
    except OSError:  # pruned just now
        return None
    return path


def write_folder(kind: str, key: str, fill: Callable[[Path], None]) -> None:
    """Keep the files `fill` writes into the folder it is given under `key`, all of them or none.

    `fill` writes into a private folder that is renamed to the entry's name when it returns, so a
    reader finds the whole entry or no entry. A writer that finds the entry already there (another
    process kept it first) keeps nothing.
    """
    path = _path(kind, key)
    if path is None or path.exists():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=path.parent, suffix=".tmp"))
    except OSError:
        return
    try:
        fill(staging)
        os.rename(staging, path)
    except OSError:  # a full disk, or another process kept it first
        shutil.rmtree(staging, ignore_errors=True)
        return
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _prune(path.parent)


def _path(kind: str, key: str) -> Path | None:
    root = settings.cache_dir()
    if root is None:
        return None
    if not key.isalnum():  # keys are hex digests: never a path of their own
        raise ValueError(f"cache key {key!r} is not a digest")
    return root / kind / key


def _prune(folder: Path) -> None:
    cutoff = time.time() - KEEP_DAYS * 86400
    for path in folder.iterdir():
        try:
            if path.stat().st_mtime >= cutoff:
                continue
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:  # another process pruned it first
            continue
