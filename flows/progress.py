"""Stage lines on stderr while a long command works: "loading prices...", "rebuilding estimates...".

Flows, tasks and commands call `stage("...")` at each long step (the writer and the report
builder take it as their `on_step`); a command that wraps its work in `shown()` prints each
stage on stderr with the seconds since it began, only when stderr is a terminal and the command
was not given `--quiet`, so stdout (JSON, CSV, a table) and logs, pipes and CI stay clean. A
counted stage ("report: drawing chart 3/30") rewrites its own line rather than adding thirty.
Outside `shown()` (a Prefect worker, a test) `stage` does nothing.
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from flows import interrupt

_listeners: list[Callable[[str], None]] = []
_lock = threading.Lock()  # fetch tasks report from worker threads
COUNTER = re.compile(r"\s*\d+/\d+\s*$")  # a stage's "n/m" at its end: the same stage, further on


def stage(message: str) -> None:
    """Say what the command is doing now (printed only under `shown()`); after Ctrl-C, stop here."""
    interrupt.checkpoint()
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(message)


@contextmanager
def shown(first: str, quiet: bool = False, stream: TextIO | None = None) -> Iterator[None]:
    """Print `first`, then every `stage`, on `stream` (stderr) while the block runs: terminals only."""
    out = stream or sys.stderr
    if quiet or not out.isatty():
        yield
        return
    printer = _StageLines(out)
    with _lock:
        _listeners.append(printer)
    printer(first)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(printer)
        printer.close()


class _StageLines:
    """Each stage on its own line; a counted stage's next count over its previous one."""

    def __init__(self, out: TextIO):
        self._out = out
        self._start = time.monotonic()
        self._open = ""  # the counted stage whose line is not finished yet, if any
        self._lock = threading.Lock()

    def __call__(self, message: str) -> None:
        if interrupt.happened():  # the interrupt's one line is all that follows
            return
        line = f"[{time.monotonic() - self._start:5.1f}s] {message}..."
        counted = COUNTER.sub("", message) if COUNTER.search(message) else ""
        with self._lock:
            if counted and counted == self._open:
                self._out.write("\r\x1b[K" + line)  # back to the line's start, cleared
            else:
                self._out.write(("\n" if self._open else "") + line + ("" if counted else "\n"))
            self._open = counted
            self._out.flush()

    def close(self) -> None:
        with self._lock:
            if self._open:
                self._out.write("\n")
                self._out.flush()
            self._open = ""
