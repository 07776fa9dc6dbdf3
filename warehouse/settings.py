"""Where the pipeline keeps its data: one data directory, one warehouse location."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir(override: str | Path | None = None) -> Path:
    """The data directory: an explicit argument, else GPUCALC_DATA_DIR, else ./data."""
    return Path(override or os.environ.get("GPUCALC_DATA_DIR") or "data").resolve()


def warehouse_path(data_directory: Path) -> str:
    """The DuckDB location: GPUCALC_WAREHOUSE when set (a file path today, a lake URI later)."""
    return os.environ.get("GPUCALC_WAREHOUSE") or str(data_directory / "warehouse.duckdb")


def raw_dir(data_directory: Path) -> Path:
    return data_directory / "raw"


def reports_dir(data_directory: Path) -> Path:
    return data_directory / "reports"
