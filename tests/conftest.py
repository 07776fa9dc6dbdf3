"""Shared fixtures: an in-memory warehouse, one Prefect server and one bundled warehouse per run.

The Prefect test server takes ~20 s to start and the bundled warehouse ~10 s to build, so
each is made once for the whole test run (all workers: tests/run_services.py), only when a
test asks for it; tests that change a warehouse work on a copy (`offline_copy`).
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
from datetime import date
from functools import lru_cache
from pathlib import Path

import pytest

from tests import run_services

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# A night's interactivity curves cost it a second, private rebuild; the tests of the curves
# (tests/reports/test_night_curve.py) turn them on, every other night keeps none.
os.environ.setdefault("GPUCALC_CURVES", "off")
# Parallel workers share the cores: one DuckDB thread each, or their threads contend for every
# core and the suite spends a fifth more CPU on the same work.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault("GPUCALC_THREADS", "1")

OFFLINE_DAY = date(2026, 11, 29)


def _typer_builds_the_command_once() -> None:
    """typer's test runner builds the whole command tree from the app on every invoke, and the
    tests invoke one app hundreds of times: build it once per app (a built tree keeps no state
    between invocations, as one `gpucalc` process runs it once)."""
    from typer import testing

    if not hasattr(testing._get_command, "cache_info"):
        testing._get_command = lru_cache(maxsize=4)(testing._get_command)


_typer_builds_the_command_once()
GC_THRESHOLDS = (20_000, 20, 20)

# Under `-n 2 --dist loadfile` (`make test`) a file's tests run on one worker, and files that
# share an expensive session fixture run on the same one, so it is built once.
SHARED_WORKER = {
    "tests/reports/test_report_nights.py": "nights",  # the `nights` fixture (tests/reports/conftest.py)
    "tests/reports/test_report_browser.py": "nights",
    "tests/reports/test_seed_questions.py": "nights",
}
# The slowest files start first, so the workers finish together rather than one waiting on the
# other's last long file (measured with `--durations=0`, longest first); the first two need no
# Prefect server, so the one the files below them share boots while they run.
SLOWEST_FIRST = (
    "tests/warehouse/test_knobs.py",
    "tests/flows/test_reliability.py",
    "tests/flows/test_backends.py",
    "tests/reports/test_report_nights.py",
    "tests/reports/test_report_browser.py",
    "tests/flows/test_cli_sources.py",
    "tests/flows/test_ingest_safety.py",
    "tests/flows/test_online.py",
    "tests/warehouse/test_predict.py",
    "tests/warehouse/test_calibration.py",
    "tests/flows/test_nightly.py",
)
# The files whose tests run a flow on the run's Prefect server (`prefect_harness`).
NEED_PREFECT = {"tests/flows/test_backends.py", "tests/flows/test_nightly.py", "tests/flows/test_online.py",
                "tests/reports/test_report_nights.py", "tests/reports/test_report_browser.py"}


def pytest_configure(config):
    """One folder for the whole run, shared by the workers and the commands they start (they
    inherit the environment): the servers all workers use (tests/run_services.py) and one
    validation and chart cache, so the first test to load a batch or draw a chart pays for it
    and the rest reuse it (warehouse/store/cache.py). No other run shares it."""
    if hasattr(config, "workerinput"):
        return
    config.gpucalc_run = Path(tempfile.mkdtemp(prefix="gpucalc-test-run-"))
    os.environ[run_services.RUN_DIR] = str(config.gpucalc_run)
    os.environ[run_services.MAIN_PID] = str(os.getpid())
    os.environ.setdefault("GPUCALC_CACHE_DIR", str(config.gpucalc_run / "cache"))


def pytest_unconfigure(config):
    run = getattr(config, "gpucalc_run", None)
    if run:
        run_services.stop_all(run)
        shutil.rmtree(run, ignore_errors=True)


@pytest.fixture(autouse=True)
def _prefect_events_stopped_after_each_test():
    """After a flow has run, Prefect's events client keeps a websocket open on a background
    thread, and its keepalive pings draw from the global `random`: a later Hypothesis test on the
    same worker then warns that its strategy used `random`. Stop those clients after every test
    (nothing to stop where no flow ran); the next flow starts its own."""
    yield
    if "prefect.events.worker" in sys.modules:
        sys.modules["prefect.events.worker"].EventsWorker.drain_all(timeout=10)


@pytest.fixture
def con():
    from warehouse.store import db

    connection = db.connect(":memory:")
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def prefect_harness():
    """The run's one throwaway Prefect API (its own SQLite database), for every test that runs a flow;
    its flows run as `gpucalc run` runs them on the server it starts (flows/prefect_api.py): no
    flow-run heartbeats, whose thread each flow waits for as it ends, and no logs shipped to it."""
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
        PREFECT_LOGGING_TO_API_ENABLED,
        temporary_settings,
    )

    from flows import prefect_api

    url = prefect_starting()
    prefect_api.wait_until_up(None, url, 180)
    with temporary_settings(updates={PREFECT_API_URL: url, PREFECT_LOGGING_TO_API_ENABLED: False,
                                     PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield url


def prefect_starting() -> str:
    """The run's Prefect API, started if nobody has yet; returns at once, while it boots (half of
    the boot migrates a fresh database): collection calls it when a file that runs flows is in the run."""
    return run_services.shared("prefect", _start_prefect)["url"]


def _start_prefect(folder: Path) -> dict:
    import subprocess

    from flows import prefect_api

    folder.mkdir(exist_ok=True)
    port = prefect_api.free_port()
    command, env = prefect_api.server_command(port)
    env |= {"PREFECT_HOME": str(folder), "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{folder}/prefect.db"}
    with (folder / "server.log").open("w") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    return {"url": f"http://127.0.0.1:{port}/api", "stop": ["kill", "-TERM", str(process.pid)]}


@pytest.fixture(scope="session")
def offline_data(tmp_path_factory) -> Path:
    """A data directory as `gpucalc run --offline --date 2026-11-29` leaves it (no report).

    Built once for the whole run, by whichever worker asks first; each worker reads its own copy.
    """
    built = run_services.shared("offline", _build_offline)["data"]
    data = tmp_path_factory.mktemp("offline")
    shutil.copytree(built, data, dirs_exist_ok=True)
    return data


def _build_offline(data: Path) -> dict:
    from warehouse.loading.load import RunContext
    from warehouse.loading.writer import new_run_id, write_run
    from warehouse.store.workspace import Workspace

    shutil.rmtree(data, ignore_errors=True)  # what a worker that failed here left
    data.mkdir()
    run = RunContext.new(new_run_id(OFFLINE_DAY), OFFLINE_DAY)
    write_run(Workspace.resolve(data), run, "offline", [], bundled_prices=True)
    return {"data": str(data)}


@pytest.fixture
def offline_copy(offline_data, tmp_path) -> Path:
    """A private copy of the bundled warehouse's data directory, free to change."""
    target = tmp_path / "data"
    shutil.copytree(offline_data, target)
    return target


@pytest.fixture(scope="session")
def postgres_server():
    """The run's one real PostgreSQL server (Debian's packages); skipped where none can start."""
    from tests import pg_server

    try:
        return pg_server.PostgresServer.from_details(run_services.shared("postgres", pg_server.start_shared))
    except pg_server.NoPostgres as exc:
        pytest.skip(f"no PostgreSQL server for the DuckLake PostgreSQL-catalog tests: {exc}")


def pytest_xdist_make_scheduler(config, log):
    """`-n 2 --dist loadfile`, with the files of SHARED_WORKER sent together, in SLOWEST_FIRST order.

    (xdist's own `loadgroup` marks cannot do it under pytest 9.2: the group suffix it writes into
    the test's node id no longer reaches the scheduler.)
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FilesSharingFixtures(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::")[0]
            return SHARED_WORKER.get(path, path)

    config.option.loadscopereorder = False  # keep the workers' collection order: slowest first
    return FilesSharingFixtures(config, log)


def pytest_collection_modifyitems(config, items):
    # What is imported by now lives as long as the worker: out of the collector's way, and
    # collections made rarer, since a test run's objects are few and short-lived next to them
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    rank = {path: i for i, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: files keep their order
    if not config.getoption("collectonly") and any(item.nodeid.split("::")[0] in NEED_PREFECT for item in items):
        prefect_starting()  # it boots while the first files run, not when the first flow needs it
