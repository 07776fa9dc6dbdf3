"""What the command line says on stderr when a command fails: one sentence and a hint.

Progress is flows/progress.py; Ctrl-C is flows/interrupt.py.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import typer


def fail(error: BaseException, hint: str, verbose: bool, code: int = 1) -> NoReturn:
    """One sentence and a hint on stderr (the traceback too under --verbose), then exit; an error
    Ctrl-C caused (DuckDB's "Query interrupted") is the interrupt's own exit and line instead."""
    from flows import interrupt

    if interrupt.happened():
        raise typer.Exit(interrupt.CODE) from error
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


def terse_prefect_errors(verbose: bool = False) -> None:
    """Prefect's console lines as the command line wants them: none once Ctrl-C was pressed (the
    interrupt's one line says it), and, but under --verbose, a failed task's and flow's one line
    without the whole traceback Prefect's engine logs twice (the run's log file has it)."""
    from prefect.logging.configuration import ensure_logging_setup
    from prefect.logging.handlers import PrefectConsoleHandler

    from flows.interrupt import SilentOnceInterrupted

    ensure_logging_setup()  # its console handler is on the root logger from then on
    wanted = (SilentOnceInterrupted,) if verbose else (SilentOnceInterrupted, _NoTraceback)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrefectConsoleHandler):
            for kind in wanted:
                if not any(isinstance(f, kind) for f in handler.filters):
                    handler.addFilter(kind())
