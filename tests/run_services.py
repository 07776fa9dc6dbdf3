"""What the whole test run shares: one Prefect API, one PostgreSQL server, one bundled warehouse.

Under `pytest -n 2` each worker is its own session, so a session fixture that starts a
server starts it twice: a Prefect server on a fresh database takes ~19 s (half of it
migrating the database), PostgreSQL's initdb a few more, the bundled night ~10 s. Here the
first worker that asks starts it under a lock and writes how to reach it into the run's
folder; the other reads that.

A server outlives the worker that started it (the other may still use it): the run's main
process stops every server at its end (`stop_all`, from pytest_unconfigure), and a small
keeper process (`python -m tests.run_services keep`) stops it if that main process dies
without doing so (killed, say), so no server outlives the run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

RUN_DIR = "GPUCALC_TEST_RUN_DIR"  # set by tests/conftest.py in the run's main process; workers inherit it
MAIN_PID = "GPUCALC_TEST_MAIN_PID"


def shared(name: str, start: Callable[[Path], dict]) -> dict:
    """What `start(folder)` returned the first time any worker of this run asked for `name`.

    `start` returns JSON-able details; for a server, among them `stop`: the command that stops it.
    """
    root = Path(os.environ[RUN_DIR])
    info = root / f"{name}.json"
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if info.exists():
            return json.loads(info.read_text())
        details = start(root / name)
        if "stop" not in details:  # something built once (a warehouse), not a server
            info.write_text(json.dumps(details))
            return details
        keeper = subprocess.Popen(
            [sys.executable, "-m", "tests.run_services", "keep", os.environ[MAIN_PID], json.dumps(details["stop"])],
            cwd=Path(__file__).resolve().parents[1], start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        info.write_text(json.dumps({**details, "keeper": keeper.pid}))
        return details


def stop_all(root: Path) -> None:
    """Stop every server of the run (its main process, at the end)."""
    for info in sorted(root.glob("*.json")):
        details = json.loads(info.read_text())
        if "stop" not in details:
            continue
        subprocess.run(details["stop"], capture_output=True, timeout=120)
        with contextlib.suppress(ProcessLookupError):
            os.kill(details["keeper"], signal.SIGTERM)


def _keep(main_pid: int, stop: list[str]) -> None:
    """Wait for the run's main process to end, then make sure the server is stopped."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop_all did it already
    while _alive(main_pid):
        time.sleep(1)
    subprocess.run(stop, capture_output=True, timeout=120)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__" and sys.argv[1:2] == ["keep"]:
    _keep(int(sys.argv[2]), json.loads(sys.argv[3]))
