"""The files and folders that hold what gpucalc keeps, which no command may write its output over.

A command that writes a file people name (`predict --out`, `export --out`) asks `kept_state_reason`
first: the warehouse file (and its write-ahead log, working copy and spill folder), a lake's
catalog file (and SQLite's companions) and its Parquet folder, and the data directory's raw/
payloads, run journal, logs, your catalog and the write turn's lock file. Overwriting any of them
loses stored rows or the evidence that rebuilds them.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.store.location import DUCKLAKE, FILE
from warehouse.store.turns import LOCK_NAME
from warehouse.store.workspace import Workspace

# What DuckDB and SQLite keep beside a database file while it is written or read.
_COMPANIONS = (".wal", ".next", ".next.wal", ".tmp", "-wal", "-shm", "-journal")


def kept_state(workspace: Workspace) -> list[Path]:
    """Every file and folder of the workspace's warehouse and data directory that gpucalc keeps
    (a folder's contents included)."""
    where = workspace.where
    own = where.local_file if where.kind == FILE else where.catalog_file
    paths = [*_with_companions(own)] if own is not None else []
    if where.kind == DUCKLAKE and "://" not in (data_path := workspace.lake_data_path):
        paths.append(Path(data_path))
    paths += [workspace.raw_dir, workspace.journal_dir, workspace.logs_dir, workspace.catalog_dir,
              workspace.data_dir / LOCK_NAME]
    if own is not None:
        paths.append(own.parent / LOCK_NAME)  # the write turn's lock lives beside the warehouse's file
    return [_real(p) for p in paths]


def kept_state_reason(target: Path, workspace: Workspace) -> str | None:
    """Why writing `target` (a file, or a folder of files) would overwrite what gpucalc keeps, or None."""
    wanted = _real(target)
    for kept in kept_state(workspace):
        if wanted == kept or kept in wanted.parents or _same_file(wanted, kept):
            return f"{target} is part of the warehouse's kept state ({kept}): writing there would destroy it"
    return None


def _with_companions(path: Path) -> list[Path]:
    return [path, *(path.with_name(path.name + suffix) for suffix in _COMPANIONS)]


def _real(path: Path) -> Path:
    """The path with links followed, so a symlink to the warehouse is the warehouse."""
    return Path(path).expanduser().resolve()


def _same_file(a: Path, b: Path) -> bool:
    """A hard link to a kept file is that file."""
    try:
        return a.is_file() and b.is_file() and a.samefile(b)
    except OSError:
        return False
