"""What the command line shows on stderr while it works: progress, and errors in one sentence.

Flows and tasks call `step("...")` at each long step (fetching, loading and recomputing,
drawing the report); a command that wraps its work in `progress()` shows the latest step
with a spinner and the time elapsed, on stderr, and only when stderr is a terminal: logs,
pipes and CI output stay clean. Outside a command (a Prefect worker) `step` does nothing.
"""

from __future__ import annotations

import errno
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import typer

_listeners: list[Callable[[str], None]] = []
_lock = threading.Lock()  # fetch tasks report from worker threads


def step(message: str) -> None:
    """Say what the run is doing now (shown only under `progress()` on a terminal)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(message)


@contextmanager
def progress(first: str) -> Iterator[None]:
    """Show each `step` on stderr with a spinner while the block runs (terminals only)."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(first, total=None)

        def show(message: str) -> None:
            bar.update(task, description=message)

        with _lock:
            _listeners.append(show)
        try:
            yield
        finally:
            with _lock:
                _listeners.remove(show)


def fail(error: BaseException, hint: str, verbose: bool, code: int = 1) -> NoReturn:
    """One sentence and a hint on stderr (the traceback too under --verbose), then exit."""
    if verbose:
        from rich.console import Console
        from rich.traceback import Traceback

        Console(stderr=True).print(Traceback.from_exception(type(error), error, error.__traceback__))
    from warehouse.store.location import redact

    first = redact(disk_full(error) or first_line(error))
    typer.echo(f"error: {first}", err=True)
    typer.echo(f"hint: {hint}", err=True)
    raise typer.Exit(code) from error


class AfterTheWrite(RuntimeError):
    """A failure after the warehouse write had landed: the warehouse holds the run's data."""


@contextmanager
def after_the_write(what: str) -> Iterator[None]:
    """Whatever fails inside failed after the warehouse write landed: say so, and what did not get done."""
    try:
        yield
    except Exception as exc:
        raise AfterTheWrite(f"the warehouse has the run's data, but {what} failed: {first_line(exc)}") from exc


def first_line(error: BaseException) -> str:
    """An error's first line, or its type's name where it says nothing."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def disk_full(error: BaseException) -> str | None:
    """The sentence for a full disk, whichever layer noticed it (Python's files, DuckDB's), that says
    whether the warehouse write had landed before it."""
    full = _disk_full_error(error)
    if full is None:
        return None
    path = _written_path(full)
    where = f" writing {path}" if path else ""
    if any(isinstance(e, AfterTheWrite) for e in _chain(error)):
        return (f"the disk is full{where} (no space left on device) after the warehouse had taken the run's data; "
                "only what came after it (the report) is missing. Free some space and run `gpucalc report`")
    return (f"the disk is full{where} (no space left on device); the warehouse is as it was. "
            "Free some space and run the command again")


def _disk_full_error(error: BaseException) -> BaseException | None:
    """The error in `error`'s chain that says the disk is full, if one does (the OSError, which
    names the file, before a message that only repeats it)."""
    chain = list(_chain(error))
    return next((e for e in chain if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)),
                next((e for e in chain if "No space left on device" in str(e)), None))


def _written_path(error: BaseException) -> str | None:
    return getattr(error, "filename2", None) or getattr(error, "filename", None)  # a copy: its target


def _chain(error: BaseException) -> Iterator[BaseException]:
    """`error` and the errors it was raised from."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def unwritable_folder(error: BaseException) -> Path | None:
    """The folder a write was refused in (permission denied, read-only file system), or None."""
    if not (isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EPERM, errno.EROFS)):
        return None
    path = _written_path(error)
    return Path(path).parent if path else None


def not_writable(folder: Path) -> str:
    """The sentence for a folder gpucalc must write but may not (read-only, another user's)."""
    return (f"gpucalc cannot write to {folder} (read-only for this user); the warehouse is as it was. "
            f"Make it writable (chmod -R u+w {folder}) or pass --data-dir with a folder you can write")


class _NoTraceback(logging.Filter):
    """Drops a record's traceback (the handlers before this one, Prefect's API log, have had it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


def terse_prefect_errors() -> None:
    """Prefect's engine logs a failed task's and flow's whole traceback, twice, on the terminal;
    keep its one line there (the run's log file has the traceback, `--verbose` shows it)."""
    from prefect.logging.configuration import ensure_logging_setup
    from prefect.logging.handlers import PrefectConsoleHandler

    ensure_logging_setup()  # its console handler is on the root logger from then on
    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrefectConsoleHandler) and not any(isinstance(f, _NoTraceback)
                                                                  for f in handler.filters):
            handler.addFilter(_NoTraceback())
