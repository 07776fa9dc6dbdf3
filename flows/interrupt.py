"""Ctrl-C: any command ends within two seconds, exit 130, one line on stderr, nothing half-written.

The first SIGINT raises KeyboardInterrupt in the main thread, as Python's own handler does, so
every `except BaseException` on the way out discards what it was writing (the warehouse's
working copy, a report folder, a payload's temporary file) and a Prefect run records how it
ended; each progress stage is a `checkpoint` that raises it again where a library swallowed it.
A command still running DEADLINE_S later (a long DuckDB statement, Prefect waiting on its API)
ends there: what `on_end` registered runs (the temporary Prefect server is killed), then the
process exits. That end is safe at any moment: every gpucalc write is a copy published by one
rename, so the live warehouse and reports stay as the last finished write left them, and the
next writer discards a copy left behind. A second Ctrl-C ends the command at once.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

DEADLINE_S = 1.0  # then the end: well inside the two seconds a person waits, on a busy machine too
CODE = 130  # 128 + SIGINT, what a shell reports for a command Ctrl-C ended
# what a command that writes says: each of its writes is a copy published by one rename
WRITER = "interrupted: the warehouse and reports are as the last finished write left them"

_lock = threading.RLock()
_state = {"interrupted": False, "said": False, "line": "interrupted"}
_ends: list[Callable[[], None]] = []


def install() -> None:
    """Handle SIGINT as above from now on (Python runs signal handlers in the main thread only)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)
        sys.unraisablehook = _unraisable


def _unraisable(unraisable) -> None:
    """Python cannot raise Ctrl-C's KeyboardInterrupt where it landed in a finaliser (a `__del__`)
    and would print it as "Exception ignored": say nothing, the next checkpoint raises it."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def happened() -> bool:
    return _state["interrupted"]


def explain(line: str) -> None:
    """The one line this command says when interrupted, if not the plain "interrupted"."""
    _state["line"] = line


def say() -> None:
    """Print the command's interrupt line on stderr, once, whoever gets there first."""
    with _lock:
        if _state["said"]:
            return
        _state["said"] = True
    sys.stderr.write(_state["line"] + "\n")
    sys.stderr.flush()


def checkpoint() -> None:
    """Raise KeyboardInterrupt here, in the main thread, if Ctrl-C was pressed: a library that
    swallowed it (a bare `except:` around an optional import) would let the command run on."""
    if happened() and threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt


@contextmanager
def on_end(stop: Callable[[], None]) -> Iterator[None]:
    """While the block runs, `stop` (quick, no waiting) runs before Ctrl-C ends the process."""
    with _lock:
        _ends.append(stop)
    try:
        yield
    finally:
        with _lock:
            _ends.remove(stop)


class SilentOnceInterrupted(logging.Filter):
    """Drops every record once interrupted: the interrupt's one line is the whole story on the
    terminal (Prefect would add its "Crash detected" lines; the run's log file keeps its own)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not happened()


def _on_sigint(_signum, _frame) -> None:
    if happened():  # a second Ctrl-C: no more waiting
        end_now()
    _state["interrupted"] = True
    deadline = threading.Timer(DEADLINE_S, end_now)
    deadline.daemon = True
    deadline.start()
    raise KeyboardInterrupt


def end_now() -> None:
    """Say the line, run what `on_end` registered, exit with CODE at once: no interpreter
    teardown, no flushing of Prefect's log handlers (they would wait on a server gone)."""
    say()
    with _lock:
        stops = list(_ends)
    for stop in stops:
        try:
            stop()
        except Exception:  # noqa: S110 - ending anyway: a stop that failed must not keep the process
            pass
    sys.stdout.flush()
    os._exit(CODE)
