"""Shared fixtures: an in-memory warehouse with the real schema applied."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


@pytest.fixture
def con():
    from warehouse import db

    connection = db.connect(":memory:")
    yield connection
    connection.close()
