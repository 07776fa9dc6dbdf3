"""Every run's full story in one file: `<data>/logs/<run_id>.log`.

The terminal and the report say one sentence per failure; the detail behind them (a fetch's
exception chain, a parser crash, a source's per-cloud warnings) goes here, with everything
gpucalc's own modules log during the run. Those loggers stop reaching the terminal for the
run: there, the flow's one line per source that did not load is the whole story.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from warehouse.store.workspace import Workspace

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
OWN_LOGGERS = ("sources", "warehouse", "flows", "reports", "gpucalc")


class RedactingFormatter(logging.Formatter):
    """Formats a record, traceback included, with every password and token hidden: a line may
    name the warehouse location or quote a driver's error that repeats it."""

    def format(self, record: logging.LogRecord) -> str:
        from warehouse.store.location import redact

        return redact(super().format(record))


@contextlib.contextmanager
def run_log_file(workspace: Workspace, run_id: str) -> Iterator[Path]:
    """Send gpucalc's own logging to the run's log file (and only there) while the run lasts."""
    folder = workspace.logs_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{run_id}.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(RedactingFormatter(FORMAT))
    saved = []
    for name in OWN_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level, logger.propagate))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    try:
        yield path
    finally:
        for logger, level, propagate in saved:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate
        handler.close()
