"""How DuckDB may use the machine, and where gpucalc caches what it can recompute.

A data directory's layout and the warehouse setting are warehouse/store/workspace.py's; every
environment variable is read through sources/kit/environment.py.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sources.kit.environment import env


def cache_dir() -> Path | None:
    """Where gpucalc keeps what it can recompute (validation results, drawn charts):
    GPUCALC_CACHE_DIR, else $XDG_CACHE_HOME/gpucalc, else ~/.cache/gpucalc; `off` keeps nothing."""
    chosen = env("GPUCALC_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    return Path(env("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpucalc"


# Writers store row groups of 8,192 rows rather than DuckDB's 122,880 (db.open_file attaches a
# file so; lake.connect sets it on a lake with no size of its own): each insert compresses its
# row groups on every core as it fills them, leaving the commit's one-core checkpoint almost
# nothing (docs/scale.md). The price: the DuckDB 1.5.5 bug that drops a row group's worth of
# inserted rows (warehouse/loading/load.py) needs only 8,192 of them.
WRITER_ROW_GROUP_SIZE = 8_192
# A new warehouse file's block size: every table takes at least one block, and a warehouse has
# about ninety small tables, so DuckDB's default 256 KiB blocks leave most of the file empty
# (docs/scale.md). An existing file keeps the size it was made with.
NEW_FILE_BLOCK_SIZE = 65_536

DEFAULT_MEMORY_LIMIT = "1GB"
# Below this DuckDB cannot hold a night's working set and fails mid-write with "Out of Memory"
# (1KB fails on the first statement); the bundled night writes under 64 MB.
MIN_MEMORY_BYTES = 64 * 1000**2
_MEMORY_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
                 "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}
_MEMORY_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?(?:e\d+)?)\s*([a-z]+)\s*", re.I)
# DuckDB starts every thread of a connection at once (100,000 crash it); past a few per core they
# only wait on each other, but a lake on object storage gains from some waiting on the network.
THREADS_PER_CORE = 4
MIN_MAX_THREADS = 64  # a small machine may still want several threads per core for remote reads


def memory_limit() -> str:
    """DuckDB's memory limit for a writer (`GPUCALC_MEMORY_LIMIT`, DuckDB syntax such as "4GB").

    Past it DuckDB spills to disk instead of growing, which keeps the process smaller at no
    cost in time at the bench's scale (docs/scale.md).
    A size DuckDB cannot read, or one below MIN_MEMORY_BYTES, raises BadWarehouse.
    """
    from warehouse.store.location import BadWarehouse

    chosen = env("GPUCALC_MEMORY_LIMIT", DEFAULT_MEMORY_LIMIT)
    found = _MEMORY_SIZE.fullmatch(chosen)
    unit = _MEMORY_UNITS.get(found[2].lower()) if found else None
    if unit is None or float(found[1]) * unit < MIN_MEMORY_BYTES:
        raise BadWarehouse(f"GPUCALC_MEMORY_LIMIT={chosen!r} is not a DuckDB memory size of at least 64MB: "
                           "give a number and a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB), such as 4GB")
    return chosen


def max_threads() -> int:
    """The most threads GPUCALC_THREADS may ask for on this machine."""
    return max(MIN_MAX_THREADS, THREADS_PER_CORE * (os.cpu_count() or 1))


def threads() -> int | None:
    """`GPUCALC_THREADS` as a number of threads (None: unset, DuckDB's one per core); a value
    outside 1..max_threads() raises BadWarehouse."""
    from warehouse.store.location import BadWarehouse

    chosen = env("GPUCALC_THREADS")
    if not chosen:
        return None
    if not chosen.strip().isdigit() or not 1 <= int(chosen) <= max_threads():
        raise BadWarehouse(f"GPUCALC_THREADS={chosen!r} is not a number of threads from 1 to {max_threads()} "
                           "on this machine")
    return int(chosen)


def check_engine_settings() -> None:
    """Raise BadWarehouse (one sentence) if GPUCALC_THREADS, GPUCALC_MEMORY_LIMIT or GPUCALC_CURVES
    cannot be used, before a command starts any work."""
    threads()
    memory_limit()
    night_curves()


def duckdb_config(**config) -> dict:
    """DuckDB's configuration for every connection gpucalc opens: `config` plus `GPUCALC_THREADS`.

    `GPUCALC_THREADS` caps each connection's threads (unset: DuckDB's one per core). Set it
    where several gpucalc processes share the cores, as the parallel test workers do: each
    connection's threads otherwise compete for every core, and the same work costs more CPU
    time (docs/scale.md).
    """
    chosen = threads()
    if chosen is not None:
        config.setdefault("threads", chosen)
    return config


# The interactivity curves a night keeps unless GPUCALC_CURVES says otherwise: every serving job's
# on the platforms its decisions picked, and the second seed's question, GB200 NVL72 against HGX
# B200 for DeepSeek-R1 with MTP.
AUTO = "auto"
DEFAULT_CURVES = "auto;deepseek-r1-mtp=gb200-nvl72,hgx-b200-8"


@dataclass(frozen=True)
class Curves:
    every_job: bool  # each serving job, on the platforms the night's decisions picked for it
    named: dict[str, tuple[str, ...]]  # job -> platforms, beside those


def night_curves() -> Curves:
    """The interactivity curves each night keeps (warehouse/loading/night_curve.py): `GPUCALC_CURVES`,
    as parts joined by ';', each `auto` (every serving job on the platforms its decisions picked) or
    JOB=PLATFORM,PLATFORM; `off` for none. A value that is not so raises BadWarehouse."""
    from warehouse.store.location import BadWarehouse

    chosen = env("GPUCALC_CURVES", DEFAULT_CURVES).strip()
    if chosen == "off":
        return Curves(False, {})
    every_job, named = False, {}
    for part in filter(None, (p.strip() for p in chosen.split(";"))):
        if part == AUTO:
            every_job = True
            continue
        job, equals, listed = part.partition("=")
        platforms = tuple(p.strip() for p in listed.split(",") if p.strip())
        if not equals or not job.strip() or not platforms:
            raise BadWarehouse(f"GPUCALC_CURVES={chosen!r}: give parts joined by ';', each auto or "
                               "JOB=PLATFORM,PLATFORM (such as auto;deepseek-r1-mtp=gb200-nvl72,hgx-b200-8), or off")
        named[job.strip()] = platforms
    return Curves(every_job, named)
