"""Bundles from a local checkout of an MLCommons results repository (`gpucalc ingest mlperf --file DIR`).

DIR may be the checkout, its closed/ folder, one submitter, one system's results folder or
anything below it. The results/ folders under (or above) DIR are listed on disk, planned by
the same rules as the live fetch (sources.mlperf.layout) and read into the same bundles;
repository and round come from sources.mlperf.provenance. A kept bundle file is accepted too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sources.kit.spec import Payload, SourceError
from sources.mlperf import bundle, layout, provenance
from sources.mlperf.bundle import NAME

SKIP_DIRS = {"accuracy", "code", "compliance", "documentation", "src"}  # nothing the parser reads
MAX_DEPTH = 3  # checkout -> closed -> submitter -> results


def _subdirs(folder: Path) -> list[Path]:
    try:
        return sorted(c for c in folder.iterdir() if c.is_dir() and not c.name.startswith("."))
    except OSError:
        return []


def _results_dirs(path: Path) -> tuple[list[Path], Path | None]:
    """The results/ folders to read and, when DIR is inside one, the part of it DIR covers."""
    for folder in [path, *path.parents]:
        if folder.name == "results" and (folder.parent / "systems").is_dir():
            return [folder], path
    found, level = [], [path]
    for depth in range(MAX_DEPTH + 1):
        deeper = []
        for folder in level:
            if (folder / "results").is_dir():
                found.append(folder / "results")
            elif depth < MAX_DEPTH:
                # the open and network divisions are not this source's results (nor the live fetch's)
                deeper += [c for c in _subdirs(folder) if folder != path or c.name not in ("open", "network")]
        level = deeper
    return sorted(found), None


def _owner_prefix(owner: Path) -> str:
    """`closed/NVIDIA/` or `NVIDIA/`: how the repository names a submitter folder."""
    return f"{owner.parent.name}/{owner.name}/" if owner.parent.name in layout.DIVISIONS else f"{owner.name}/"


def _listing(results: Path, scope: Path | None) -> dict[str, Path]:
    """Repository path -> file on disk: the results in scope and the submitter's systems and measurements."""
    owner = results.parent
    prefix = _owner_prefix(owner)
    files: dict[str, Path] = {}
    for root in (scope or results, owner / "systems", owner / "measurements"):
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            for name in names:
                full = Path(folder) / name
                files[prefix + full.relative_to(owner).as_posix()] = full
    return files


def _bundle_file(path: Path) -> list[Payload]:
    """A bundle kept under raw/mlperf/ (or sent by a colleague) loads as it is."""
    body = path.read_bytes()
    try:
        bundle.read(Payload(NAME, path.name, body, str(path)))
    except SourceError as exc:
        why = f"{path} is neither a results checkout folder nor an MLPerf bundle ({exc.message})"
        raise SourceError(NAME, why) from exc
    plain = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}", path.name) and ".." not in path.name
    return [Payload(NAME, path.name if plain else bundle.safe_name(path.name) + ".json", body, str(path))]


def from_path(path: Path | str) -> list[Payload]:
    path = Path(path).expanduser().resolve()
    if path.is_file():
        return _bundle_file(path)
    if not path.is_dir():
        raise SourceError(NAME, f"no such directory: {path}")
    results, scope = _results_dirs(path)
    disk: dict[str, Path] = {}
    owners: dict[str, Path] = {}
    for folder in results:
        disk |= _listing(folder, scope)
        owners[_owner_prefix(folder.parent)] = folder.parent
    suites = layout.suites_in(disk)
    if len(suites) != 1:
        found = "both inference and training results: point at one repository" if suites else (
            "no MLPerf inference summaries or training result logs under a results/ folder"
        )
        raise SourceError(NAME, f"{path}: found {found}")
    suite = suites.pop()
    origin = provenance.find(path, suite)
    payloads = []
    for unit in layout.plan(suite, disk):
        texts, unreadable = {}, {}
        for repo_path in unit.wanted:
            try:
                texts[repo_path] = disk[repo_path].read_bytes().decode("utf-8", "replace")
            except OSError as exc:
                unreadable[repo_path] = f"unreadable: {exc}"
        folder = owners[unit.prefix] / "results" / unit.system
        payloads.append(bundle.make(origin, unit, texts, unreadable, str(folder)))
    return payloads
