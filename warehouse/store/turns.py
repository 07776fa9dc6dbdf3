"""Writers take turns: who holds the warehouse, how long a second writer waits, what it says.

On one machine the turn is an exclusive `flock` on `.gpucalc-write.lock` beside the warehouse
file (the data directory, by default), which the kernel releases when the holder dies,
however it dies. The lock file also says who holds it; a holder that vanished without
marking itself finished was killed, and the next writer records that run as failed. (A
PostgreSQL catalog spans machines, so there the turn is a PostgreSQL advisory lock instead:
warehouse/store/pg_turn.py, same waiting and same messages.)
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from sources.kit.environment import number

LOCK_NAME = ".gpucalc-write.lock"
DEFAULT_WAIT_S = 600.0  # a nightly fetch can take minutes; waiting beats failing
POLL_S = 0.2


class WarehouseBusy(Exception):
    """Another gpucalc process is writing the warehouse and did not finish in time."""


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) the write turn."""

    run_id: str
    run_date: str
    mode: str
    pid: int
    started_at: str
    finished: bool = False
    host: str = ""  # where the holder runs: writers on other machines share a PostgreSQL catalog

    def describe(self) -> str:
        where = f" on {self.host}" if self.host and self.host != socket.gethostname() else ""
        return f"run {self.run_id} ({self.mode}, pid {self.pid}{where}, started {self.started_at} UTC)"

    def done(self) -> Holder:
        return replace(self, finished=True)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | None) -> Holder | None:
        try:
            data = json.loads(text or "null")
            return cls(**data) if isinstance(data, dict) else None
        except (ValueError, TypeError):
            return None  # an empty or half-written record says nothing


def me(run_id: str, run_date: str, mode: str) -> Holder:
    return Holder(run_id, run_date, mode, os.getpid(), now(), host=socket.gethostname())


def wait_seconds() -> float:
    """How long a writer waits for its turn: GPUCALC_WRITE_WAIT_S, else DEFAULT_WAIT_S."""
    return number("GPUCALC_WRITE_WAIT_S", DEFAULT_WAIT_S, float, 0.0)


def wait_for(
    try_once: Callable[[], bool],
    holder: Callable[[], Holder | None],
    wait_s: float,
    on_wait: Callable[[Holder], None] | None,
) -> None:
    """Call `try_once` until it gets the turn; past `wait_s`, refuse with one sentence naming the holder."""
    deadline = time.monotonic() + wait_s
    announced = False
    while not try_once():
        current = holder()
        if time.monotonic() >= deadline:
            who = current.describe() if current else "another gpucalc process"
            waited = f"{wait_s:,.0f}" if wait_s >= 1 else f"{wait_s:g}"  # not "0 s" for a wait under one
            raise WarehouseBusy(
                f"{who} is writing the warehouse; waited {waited} s. Try again when it has finished "
                "(or wait longer with GPUCALC_WRITE_WAIT_S)."
            )
        if on_wait and current and not announced:
            on_wait(current)
            announced = True
        time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))


@contextmanager
def file_turn(folder: Path, mine: Holder, wait_s: float, on_wait) -> Iterator[Holder | None]:
    """Hold the flock in `folder` for the session; yields the previous holder if it was killed mid-write."""
    path = folder / LOCK_NAME
    handle = open(path, "a+b")  # noqa: SIM115 - held for the whole session
    try:
        wait_for(lambda: _try_flock(handle), lambda: _read(path), wait_s, on_wait)
        previous = _read(path)
        _write(handle, mine)
        try:
            yield previous if previous and not previous.finished else None
        finally:
            _write(handle, mine.done())
    finally:
        handle.close()  # releases the flock


def _try_flock(handle) -> bool:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _read(path: Path) -> Holder | None:
    try:
        return Holder.from_json(path.read_text())
    except OSError:
        return None


def _write(handle, holder: Holder) -> None:
    handle.seek(0)
    handle.truncate()
    handle.write(holder.to_json().encode())
    handle.flush()
    os.fsync(handle.fileno())


def now() -> str:
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
