"""The data directory and the warehouse one command or flow works on, and what lives where in them.

A command or flow resolves its Workspace once, at its start (a flag, else the environment
variable, else the default), and hands it down: nothing below reads those settings again or
finds one folder from another. This is the one place that knows a data directory's layout:

    <data>/raw/<source>/<date>/   every payload fetched or ingested, as received
    <data>/warehouse.duckdb       the warehouse, unless --warehouse or GPUCALC_WAREHOUSE names another
    <data>/lake/                  a new DuckLake's Parquet files, unless GPUCALC_LAKE_DATA_PATH names another place
    <data>/reports/               the dated reports
    <data>/catalog/               your own catalog rows, layered over the bundled catalog
    <data>/run_journal/           run_log rows a writer left for the next one
    <data>/logs/<run_id>.log      each run's full story
    <data>/export/                where `gpucalc export` writes unless told otherwise
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import overload

from sources.kit.environment import env
from warehouse.store import settings
from warehouse.store.location import Location, parse, redact

WAREHOUSE_FILE = "warehouse.duckdb"


def data_directory(override: str | Path | None = None) -> Path:
    """The data directory alone, absolute: an explicit argument, else GPUCALC_DATA_DIR, else ./data.

    A command checks it before the warehouse setting is read (flows/cli_app.py).
    """
    return Path(override or env("GPUCALC_DATA_DIR") or "data").resolve()


class _Folder:
    """A folder of the data directory, read as an attribute of a Workspace."""

    def __init__(self, name: str):
        self.name = name

    @overload
    def __get__(self, workspace: None, owner: type) -> _Folder: ...

    @overload
    def __get__(self, workspace: Workspace, owner: type) -> Path: ...

    def __get__(self, workspace: Workspace | None, owner: type) -> Path | _Folder:
        if workspace is None:  # looked up on the class itself
            return self
        return workspace.data_dir / self.name


@dataclass(frozen=True)
class Workspace:
    """A resolved data directory and warehouse location; build one with `resolve`."""

    data_dir: Path  # absolute
    warehouse: str  # the location in its canonical spelling (location.py), file paths absolute

    @classmethod
    def resolve(cls, data_dir: str | Path | None = None, warehouse: str | None = None) -> Workspace:
        """The data directory (`data_directory`) and the warehouse: `warehouse`, else GPUCALC_WAREHOUSE,
        else <data-dir>/warehouse.duckdb.

        The warehouse is a DuckDB file, `ducklake:<catalog>` or `md:<database>`; a setting gpucalc
        cannot use raises location.BadWarehouse with one sentence.
        """
        directory = data_directory(data_dir)
        chosen = warehouse or env("GPUCALC_WAREHOUSE") or str(directory / WAREHOUSE_FILE)
        return cls(directory, parse(chosen).uri)

    def __repr__(self) -> str:  # a workspace in a log line or a traceback must not show a password
        return f"Workspace(data_dir={str(self.data_dir)!r}, warehouse={redact(self.warehouse)!r})"

    @property
    def where(self) -> Location:
        return parse(self.warehouse)

    # the folders of a data directory (the module's docstring says what each holds)
    raw_dir = _Folder("raw")
    reports_dir = _Folder("reports")
    catalog_dir = _Folder("catalog")
    journal_dir = _Folder("run_journal")
    logs_dir = _Folder("logs")
    export_dir = _Folder("export")

    @property
    def lake_data_path(self) -> str:
        """Where a new DuckLake writes its Parquet files: GPUCALC_LAKE_DATA_PATH, else <data-dir>/lake/.

        A folder or an object-storage prefix (s3://bucket/gpucalc/); every writer of one lake must
        name the same place, so on several machines it is shared storage.
        """
        chosen = env("GPUCALC_LAKE_DATA_PATH") or str(self.data_dir / "lake")
        if "://" not in chosen:
            chosen = str(Path(chosen).expanduser().resolve())
        return chosen.rstrip("/") + "/"

    @property
    def cache_dir(self) -> Path | None:
        """Where gpucalc keeps what it can recompute, outside the data directory (settings.cache_dir)."""
        return settings.cache_dir()
