"""A Prefect API for `gpucalc run` when none is configured: started generously, never orphaned.

With no `PREFECT_API_URL`, Prefect starts a temporary server itself, gives it 20 s to come
up (too little on a loaded machine, docs/scale.md) and leaves it
running when the parent is killed. This starts that same server with a start-up timeout you
can set (`GPUCALC_PREFECT_STARTUP_TIMEOUT`, seconds, default 180), asks the kernel to stop it
when the process that started it dies, however it dies (Linux `PR_SET_PDEATHSIG`), and boots
it before this process imports Prefect, so the server's slow start-up (mostly importing
prefect.server; docs/scale.md) runs on one core while the run's own imports (Prefect, Polars,
the flows) run on the other.

The server runs in a session of its own, out of the terminal's process group: Ctrl-C reaches
the run alone, whose Prefect client then records the interrupted task and flow run on a server
still up. In the run's group, the server stopped at the same Ctrl-C and the client retried the
refused connection for over a minute before giving up ("Connection refused").
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from flows import interrupt
from sources.kit.environment import env, number

DEFAULT_STARTUP_TIMEOUT_S = 180
PR_SET_PDEATHSIG = 1


def startup_timeout() -> int:
    return number("GPUCALC_PREFECT_STARTUP_TIMEOUT", DEFAULT_STARTUP_TIMEOUT_S, lambda value: int(float(value)), 1)


def _die_with_parent() -> None:  # runs in the child between fork and exec
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_command(port: int) -> tuple[list[str], dict[str, str]]:
    """Prefect's own temporary server (the command SubprocessASGIServer runs) and its environment,
    built without importing prefect: the server process reads the same environment and profile."""
    env = {
        **os.environ,
        "PREFECT_UI_ENABLED": "0",
        "PREFECT__SERVER_EPHEMERAL": "1",
        "PREFECT__SERVER_FINAL": "1",
        # no telemetry heartbeat: it phones Prefect's servers, and two runs' servers writing it
        # to the shared Prefect database at once print a "database is locked" traceback
        "PREFECT_SERVER_ANALYTICS_ENABLED": "0",
        # the run saves no block (no result storage, no credentials), so registering Prefect's
        # block types into its fresh database would slow the start for nothing (docs/scale.md)
        "PREFECT_API_BLOCKS_REGISTER_ON_START": "0",
    }
    app_dir = Path(importlib.util.find_spec("prefect").origin).parent.parent
    command = [sys.executable, "-m", "uvicorn", "--app-dir", str(app_dir), "--factory",
               "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(port),
               "--log-level", "error", "--lifespan", "on"]
    return command, env


def _start_server(port: int) -> subprocess.Popen:
    command, env = server_command(port)
    return subprocess.Popen(command, env=env, start_new_session=True,
                            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)


def wait_until_up(process: subprocess.Popen | None, url: str, timeout_s: int) -> None:
    """Wait for the server at `url` to answer; `process`, if this process started it, ends the wait by exiting."""
    import httpx

    with httpx.Client() as client:
        deadline = time.monotonic() + timeout_s  # after the client is made: a short wait still asks once
        while True:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"Prefect's temporary API server exited with code {process.returncode}")
            try:
                if client.get(f"{url}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() >= deadline:
                break
            time.sleep(0.1)
    raise RuntimeError(f"Prefect's temporary API server did not answer within {timeout_s} s "
                       "(GPUCALC_PREFECT_STARTUP_TIMEOUT sets the wait)")


class PrefectUnreachable(RuntimeError):
    """The Prefect API the settings name does not answer."""


REACHABLE_S = 15  # a server that is up answers its health check in milliseconds


def _answering(url: str, named_by: str) -> str:
    """`url`, once its server answers; a server that is not up is one sentence, not a flow that
    fails half-started with "Failed to reach API"."""
    try:
        wait_until_up(None, url, REACHABLE_S)
    except RuntimeError as exc:
        raise PrefectUnreachable(
            f"{named_by} is {url}, and no Prefect server answered there within {REACHABLE_S} s: start it "
            "(`prefect server start`), or unset PREFECT_API_URL and gpucalc runs a temporary one of its own"
        ) from exc
    return url


def _warm_up() -> None:
    """Import what the run needs while the server boots in its own process (two cores, one wait)."""
    # Not great-expectations, slow to import (docs/scale.md): a night whose batches were validated
    # before never imports it (warehouse/store/cache.py), and importing it anyway slows the server's boot.
    import polars  # noqa: F401


@contextlib.contextmanager
def prefect_api(*modules: str) -> Iterator[str | None]:
    """Yield the API URL flows will use; start (and finally stop) a local one if none is set.

    `modules` (the flows to run) are imported while the local server boots.
    """
    if configured := env("PREFECT_API_URL"):
        yield _answering(configured, "PREFECT_API_URL")
        return
    port = free_port()
    url = f"http://127.0.0.1:{port}/api"
    process = _start_server(port)  # first: it boots while this process imports Prefect
    with interrupt.on_end(process.kill):  # Ctrl-C's end does not wait for it
        try:
            yield from _served_by(process, url, modules)
        finally:
            _stop(process)


def _served_by(process: subprocess.Popen, url: str, modules: tuple[str, ...]) -> Iterator[str | None]:
    """The local server's URL once it answers, `modules` imported meanwhile; or the Prefect
    profile's API, the local server stopped."""
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
        PREFECT_LOGGING_TO_API_ENABLED,
        temporary_settings,
    )

    if PREFECT_API_URL.value():  # the Prefect profile names an API: the local one is not needed
        _stop(process)
        yield _answering(PREFECT_API_URL.value(), "the Prefect profile's PREFECT_API_URL")
        return
    warm = threading.Thread(target=_warm_up, daemon=True)
    warm.start()
    for module in modules:
        importlib.import_module(module)
    wait_until_up(process, url, startup_timeout())
    warm.join()
    # The server goes when the run ends, and Prefect's log shipper would then retry sending
    # the last lines to it for a minute ("Error logging to API"): the run keeps its own log
    # file (flows/log_file.py), so logs stay out of a server nobody will read. Nor does anyone
    # watch its flow run's heartbeats (they find crashed runs on a lasting server), whose
    # thread the flow waits up to a second for as it ends, Ctrl-C or not.
    with temporary_settings(updates={PREFECT_API_URL: url, PREFECT_LOGGING_TO_API_ENABLED: False,
                                     PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield url


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    if interrupt.happened():  # nothing more to record on it, and a person waiting
        process.kill()
        process.wait()
        return
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
