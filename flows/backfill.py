"""`gpucalc ingest` and `gpucalc replay`: load a local payload, or rebuild a kept day, offline.

Both run the source's own `parse` (the one the live fetch feeds) on payloads kept under
data/raw/<source>/<date>/ and hand the result to the single writer (`flows.writer`). Like
the nightly run, an ingest loads everything kept for that source and day, not only the new
file, so an ingest and a later replay of the day validate exactly the same batch (a quote
given in two files of one day is one duplicate either way). Each load replaces only the
rows of the payloads it read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from flows.writer import new_run_id, parse_kept, record_unusable, write_run
from sources import raw_store
from sources.base import Payload, SourceError
from sources.registry import all_specs, check_provider, ingest_name, parse_one, resolve, spec_for
from warehouse import settings
from warehouse.load import RunContext
from warehouse.write_session import Holder


class NothingToDo(Exception):
    """The request names nothing that can be loaded (no file, no payloads kept that day)."""


@dataclass(frozen=True)
class Outcome:
    ok: bool
    summary: dict
    kept: list[raw_store.Kept]  # ingest: the files just kept; replay: every payload read
    message: str = ""
    replaced: bool = False  # ingest: a different payload was kept under the same name that day


def check_day(day: date) -> date:
    """A day to load as observed: never after today (UTC), which would make data "fresh" for years."""
    today = datetime.now(UTC).date()
    if day > today:
        raise NothingToDo(f"{day.isoformat()} is in the future (today is {today.isoformat()} UTC)")
    return day


def ingest_file(
    source: str,
    file: Path,
    provider: str | None,
    day: date,
    data_dir: str | Path | None = None,
    on_wait: Callable[[Holder], None] | None = None,
    warehouse: str | None = None,
) -> Outcome:
    """Parse a local copy of a source's payload, keep it as raw, load it as observed on `day`."""
    name = resolve(source)
    check_day(day)
    spec = spec_for(name)
    provider = check_provider(provider) if provider else spec.default_provider
    directory = settings.data_dir(data_dir)
    warehouse = settings.warehouse_path(directory, warehouse)
    run = RunContext.new(new_run_id(day), day)
    payloads, problem = _payloads(name, file, provider)
    usable = []
    for payload in payloads:
        parsed, why = parse_one(name, payload, day)
        if parsed is None:
            problem = problem or why
        else:
            usable.append(payload)
    if not usable:
        # Not kept under raw/: a file nothing can be read from would make every later replay
        # of the day fail on it too. The user still has the file; rejected_row says why.
        summary = record_unusable(warehouse, directory, run, "ingest", name, f"ingest of {file}: {problem}")
        return Outcome(False, summary, [], problem)
    raw_dir = settings.raw_dir(directory)
    before = {k.name: k.sha256 for k in raw_store.kept_day(raw_dir, name, day)}
    kept = [raw_store.save(payload, raw_dir, day, run.run_id) for payload in usable]
    load = parse_kept(name, raw_dir, day)
    summary = write_run(warehouse, directory, run, "ingest", [load], count_baseline=False, on_wait=on_wait)
    replaced = any(before.get(k.name, k.sha256) != k.sha256 for k in kept)
    return Outcome(True, summary, kept, replaced=replaced)


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
    data_dir: str | Path | None = None,
    on_wait: Callable[[Holder], None] | None = None,
    warehouse: str | None = None,
) -> Outcome:
    """Rebuild `day`'s observations from every payload kept for it, without the network."""
    check_day(day)
    directory = settings.data_dir(data_dir)
    raw_dir = settings.raw_dir(directory)
    names = raw_store.sources_on(raw_dir, day)
    # A folder no source owns (left there by hand) is not ours to parse.
    loads = [parse_kept(name, raw_dir, day) for name in names if name in all_specs()]
    if not loads:
        raise NothingToDo(f"no payloads of a known source kept for {day.isoformat()} under {raw_dir}")
    run = RunContext.new(new_run_id(day), day)
    summary = write_run(
        settings.warehouse_path(directory, warehouse), directory, run, "replay", loads, count_baseline=False,
        on_wait=on_wait,
    )
    return Outcome(summary["status"] != "failed", summary, [k for load in loads for k in load.kept])
