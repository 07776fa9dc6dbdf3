"""`gpucalc ingest` and `gpucalc replay`: load a local payload, or rebuild a kept day, offline.

Both run the source's own `parse` (the one the live fetch feeds) on payloads kept under
data/raw/<source>/<date>/ and hand the result to the single writer (`flows.writer`). Like
the nightly run, an ingest loads everything kept for that source and day, not only the new
file: a load replaces a whole (source, provider, day) window, so loading one region's file
alone would drop the regions fetched earlier, and `replay` would then disagree with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from flows.writer import new_run_id, parse_kept, record_unusable, write_run
from sources import raw_store
from sources.base import Payload
from sources.registry import all_specs, ingest_name, parse_one, resolve, spec_for
from warehouse import settings
from warehouse.load import RunContext


class NothingToDo(Exception):
    """The request names nothing that can be loaded (no file, no payloads kept that day)."""


@dataclass(frozen=True)
class Outcome:
    ok: bool
    summary: dict
    kept: list[raw_store.Kept]  # ingest: the file just kept; replay: every payload read
    message: str = ""
    replaced: bool = False  # ingest: a different payload was kept under the same name that day


def ingest_file(
    source: str, file: Path, provider: str | None, day: date, data_dir: str | Path | None = None
) -> Outcome:
    """Parse a local copy of a source's payload, keep it as raw, load it as observed on `day`."""
    name = resolve(source)
    if not file.is_file():
        raise NothingToDo(f"no file at {file}")
    spec = spec_for(name)
    provider = provider or spec.default_provider
    payload = Payload(name, ingest_name(name, file.name, provider), file.read_bytes(), str(file.resolve()), provider)
    directory = settings.data_dir(data_dir)
    warehouse = settings.warehouse_path(directory)
    run = RunContext.new(new_run_id(day), day)
    parsed, problem = parse_one(name, payload, day)
    if parsed is None:
        # Not kept under raw/: a file nothing can be read from would make every later replay
        # of the day fail on it too. The user still has the file; rejected_row says why.
        summary = record_unusable(warehouse, run, "ingest", name, f"ingest of {file}: {problem}")
        return Outcome(False, summary, [], problem)
    before = {k.name: k.sha256 for k in raw_store.kept_day(settings.raw_dir(directory), name, day)}
    kept = raw_store.save(payload, settings.raw_dir(directory), day, run.run_id)
    load = parse_kept(name, settings.raw_dir(directory), day)
    summary = write_run(warehouse, directory, run, "ingest", [load], count_baseline=False)
    return Outcome(True, summary, [kept], replaced=before.get(kept.name, kept.sha256) != kept.sha256)


def replay_day(day: date, data_dir: str | Path | None = None) -> Outcome:
    """Rebuild `day`'s observations from every payload kept for it, without the network."""
    directory = settings.data_dir(data_dir)
    raw_dir = settings.raw_dir(directory)
    names = raw_store.sources_on(raw_dir, day)
    # A folder no source owns (left there by hand) is not ours to parse.
    loads = [parse_kept(name, raw_dir, day) for name in names if name in all_specs()]
    if not loads:
        raise NothingToDo(f"no payloads of a known source kept for {day.isoformat()} under {raw_dir}")
    run = RunContext.new(new_run_id(day), day)
    summary = write_run(settings.warehouse_path(directory), directory, run, "replay", loads, count_baseline=False)
    return Outcome(summary["status"] != "failed", summary, [k for load in loads for k in load.kept])
