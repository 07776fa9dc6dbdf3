"""`gpucalc ingest` and `gpucalc replay`: load a local payload, or rebuild a kept day, offline.

Both run the source's own `parse` (the one the live fetch feeds) on payloads kept under
data/raw/<source>/<date>/ and hand the result to the single writer (`warehouse.loading.writer`). Like
the nightly run, an ingest loads everything kept for that source and day, not only the new
file, so an ingest and a later replay of the day validate exactly the same batch (a quote
given in two files of one day is one duplicate either way). Each load replaces only the
rows of the payloads it read.

Both parse what they load only once they hold the write turn: when a newer copy of the same
file is kept under raw/ while an ingest waits, that copy is what it loads, never the older one
over it. A file whose name a file from another path holds that day is kept beside it (its
name gets a suffix from its path); one from the same path replaces it, and raw_store sets
the replaced bytes aside.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from sources.kit import clock, raw_store
from sources.kit.registry import LIVE_NAMES, all_specs, check_provider, ingest_name, parse_one, resolve, spec_for
from sources.kit.spec import Payload, SourceError
from warehouse.loading.load import RunContext
from warehouse.loading.writer import SourceLoad, Unusable, new_run_id, parse_kept, write_run
from warehouse.store.workspace import Workspace
from warehouse.store.write_session import Holder


class NothingToDo(Exception):
    """The request names nothing that can be loaded (no file, no payloads kept that day)."""


class WrongProvider(NothingToDo):
    """The file describes another provider than the one named: nothing of it can be loaded as that one."""


class CannotWrite(Exception):
    """A folder the write needs is read-only for this user: refused before anything changes."""

    def __init__(self, folder: Path):
        super().__init__(f"cannot write to {folder}")
        self.folder = folder


@dataclass(frozen=True)
class Outcome:
    ok: bool
    summary: dict
    kept: list[raw_store.Kept]  # ingest: the files just kept; replay: every payload read
    message: str = ""


def check_day(day: date) -> date:
    """A day to load as observed: never after today (UTC), which would make data "fresh" for years."""
    today = clock.today()
    if day > today:
        raise NothingToDo(f"{day.isoformat()} is in the future (today is {today.isoformat()} UTC)")
    return day


def ingest_file(
    source: str,
    file: Path,
    provider: str | None,
    day: date,
    workspace: Workspace,
    on_wait: Callable[[Holder], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> Outcome:
    """Parse a local copy of a source's payload, keep it as raw, load it as observed on `day`
    (`on_step` hears the writer's stages, for a progress line)."""
    name = resolve(source)
    check_day(day)
    spec = spec_for(name)
    provider = check_provider(provider) if provider else spec.default_provider
    raw_dir = workspace.raw_dir
    check_writable(workspace, raw_dir / name / day.isoformat())
    payloads, problem = _payloads(name, file, provider)
    _check_provider(name, file, payloads)
    usable, problem = _usable(name, payloads, day, problem)
    run = RunContext.new(new_run_id(day), day)
    if not usable:
        # Not kept under raw/: a file nothing can be read from would make every later replay
        # of the day fail on it too. The user still has the file; rejected_row says why.
        unusable = Unusable(name, f"ingest of {file}: {problem}")
        return Outcome(False, write_run(workspace, run, "ingest", unusable, on_wait=on_wait, on_step=on_step), [],
                       problem)
    # A single file is kept under its own name, unless that name holds another path's file that day.
    by_path = not file.is_dir() and not (name in LIVE_NAMES and provider)
    named = [_named(payload, raw_dir, day) for payload in usable] if by_path else usable
    kept = [raw_store.save(payload, raw_dir, day, run.run_id) for payload in named]

    def parsed_in_turn() -> list[SourceLoad]:  # what raw/ holds once no other writer can change it
        return [parse_kept(name, raw_dir, day)]

    summary = write_run(workspace, run, "ingest", parsed_in_turn, count_baseline=False, on_wait=on_wait,
                        on_step=on_step)
    return Outcome(True, summary, kept)


def _usable(name: str, payloads: list[Payload], day: date, problem: str) -> tuple[list[Payload], str]:
    """The payloads something can be read from, and (when there are none) why."""
    checked = [(payload, *parse_one(name, payload, day)) for payload in payloads]
    usable = [payload for payload, parsed, _ in checked if parsed is not None]
    return usable, "" if usable else problem or next((why for _, parsed, why in checked if parsed is None), "")


def _named(payload: Payload, raw_dir: Path, day: date) -> Payload:
    """The payload under the name its path's file has that day, else its own name if free, else
    its name with a suffix from its path: another path's file of that name keeps its copy."""
    folder = raw_dir / payload.source / day.isoformat()
    origins = raw_store.kept_origins(raw_dir, payload.source, day)
    ours = sorted(name for name, origin in origins.items() if payload.url in (origin, str(folder / name)))
    if ours:
        return replace(payload, name=ours[0])
    return payload if payload.name not in origins else replace(payload, name=_path_suffixed(payload))


def _path_suffixed(payload: Payload) -> str:
    """`quotes.csv` from /a/b/quotes.csv as `quotes-<8 hex digits of its path's hash>.csv` (the
    parsers read the format from the extension, so it stays last)."""
    name = Path(payload.name)
    return f"{name.stem}-{hashlib.sha256(payload.url.encode()).hexdigest()[:8]}{name.suffix}"


def check_writable(workspace: Workspace, *folders: Path) -> None:
    """Refuse, before anything is read or written, when a folder a write needs is read-only for
    this user: the data directory, its run journal, the warehouse's own folder, and `folders` (or
    the nearest of their parents that exists)."""
    own_file = workspace.where.local_file
    for folder in (workspace.data_dir, workspace.journal_dir, *folders, *([own_file.parent] if own_file else [])):
        existing = next(p for p in (folder, *folder.parents) if p.exists())
        if not os.access(existing, os.W_OK | os.X_OK):
            raise CannotWrite(existing)


def _check_provider(name: str, file: Path, payloads: list[Payload]) -> None:
    """A file of another provider than the one named is refused before anything is kept or loaded."""
    check = spec_for(name).wrong_provider
    if check is None or file.is_dir():
        return
    for payload in payloads:
        if why := check(file, payload):
            raise WrongProvider(f"{why} (nothing was kept or loaded)")


def _payloads(name: str, file: Path, provider: str | None) -> tuple[list[Payload], str]:
    """The payloads a local file (or, for sources that read checkouts, a folder) stands for."""
    spec = spec_for(name)
    if file.is_dir():
        if spec.from_path is None:
            raise NothingToDo(f"{file} is a folder; {name} loads one file at a time")
        try:
            payloads = spec.from_path(file)
        except SourceError as exc:
            return [], exc.message
        return payloads, "" if payloads else f"no {name} results found under {file}"
    if not file.exists():
        raise NothingToDo(f"no file at {file}")
    if not file.is_file():  # a device or a pipe: no size to check before reading it
        raise NothingToDo(f"{file} is not a regular file; {name} loads saved payloads from files")
    size = file.stat().st_size
    if size > spec.max_bytes:  # refused before reading a byte of it
        return [], f"{size:,} bytes is over the {spec.max_bytes:,}-byte limit for {name} files"
    body = file.read_bytes()
    return [Payload(name, ingest_name(name, file.name, provider), body, str(file.resolve()), provider)], ""


def replay_day(
    day: date,
    workspace: Workspace,
    on_wait: Callable[[Holder], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> Outcome:
    """Rebuild `day`'s observations from every payload kept for it, without the network."""
    check_day(day)
    raw_dir = workspace.raw_dir
    # A folder no source owns (left there by hand) is not ours to parse.
    names = [name for name in raw_store.sources_on(raw_dir, day) if name in all_specs()]
    if not names:
        raise NothingToDo(f"no payloads of a known source kept for {day.isoformat()} under {raw_dir}")
    check_writable(workspace)
    loads: list[SourceLoad] = []

    def parsed_in_turn() -> list[SourceLoad]:
        loads.extend(parse_kept(name, raw_dir, day) for name in names)
        return loads

    run = RunContext.new(new_run_id(day), day)
    summary = write_run(workspace, run, "replay", parsed_in_turn, count_baseline=False, on_wait=on_wait,
                        on_step=on_step)
    return Outcome(summary["status"] != "failed", summary, [k for load in loads for k in load.kept])
