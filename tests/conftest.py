"""Shared fixtures: an in-memory warehouse, one Prefect server and one bundled warehouse per run.

The Prefect test server takes ~20 s to start and the bundled warehouse ~10 s to build, so
each is made once for the whole test session, only when a test asks for it; tests that
change a warehouse work on a copy (`offline_copy`).
"""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

import pytest

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

OFFLINE_DAY = date(2026, 11, 29)


@pytest.fixture
def con():
    from warehouse import db

    connection = db.connect(":memory:")
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def prefect_harness():
    """One throwaway Prefect API (temporary SQLite) for every test that runs a flow."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


@pytest.fixture(scope="session")
def offline_data(tmp_path_factory) -> Path:
    """A data directory as `gpucalc run --offline --date 2026-11-29` leaves it (no report)."""
    from flows.writer import new_run_id, write_run
    from warehouse import settings
    from warehouse.load import RunContext

    data = tmp_path_factory.mktemp("offline")
    run = RunContext.new(new_run_id(OFFLINE_DAY), OFFLINE_DAY)
    write_run(settings.warehouse_path(data), data, run, "offline", [], bundled_prices=True)
    return data


@pytest.fixture
def offline_copy(offline_data, tmp_path) -> Path:
    """A private copy of the bundled warehouse's data directory, free to change."""
    target = tmp_path / "data"
    shutil.copytree(offline_data, target)
    return target


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server (Debian's packages) for the session; skipped where none can start."""
    from tests import pg_server

    try:
        server = pg_server.start()
    except pg_server.NoPostgres as exc:
        pytest.skip(f"no PostgreSQL server for the DuckLake PostgreSQL-catalog tests: {exc}")
    yield server
    server.stop()
