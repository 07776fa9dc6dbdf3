"""The warehouse tests' shared copies: a module's `built` warehouse (its own fixture, built once)
kept in a file, and a private in-memory copy of it for each test that changes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.warehouse.warehouse_copies import copy_of, keep


@pytest.fixture(scope="module")
def kept(built, tmp_path_factory) -> Path:
    """The module's `built` warehouse, kept in a file for the copies."""
    return keep(built, tmp_path_factory.mktemp("kept") / "built.duckdb")


@pytest.fixture
def own(kept):
    """A private copy of the module's `built` warehouse, for a test that changes it: nothing puts
    `built` back after a change."""
    con = copy_of(kept)
    yield con
    con.close()
