"""Whether the baseline a write starts from (the catalog with your overlays, the bundled
benchmarks) is already in the warehouse as it stands, by digest of what would be loaded.

Validating the whole catalog with great-expectations costs seconds; an ingest or a replay of
one small file should not pay it again when nothing in the catalog changed. The nightly run
always reloads (its report lists the catalog's rejects as tonight's). Answers read from the
warehouse (`compare`, the private copies of `serve`, `whatif`, `predict`) ask the same question
to see whether your catalog changed since it was loaded.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from sources.kit.spec import Parsed


def digest(catalog: dict[str, pl.DataFrame], unreadable: list[tuple[str, str]], benchmarks: Parsed) -> str:
    """sha256 of every table as CSV in a fixed order, your unreadable files, and the benchmarks."""
    h = hashlib.sha256()
    for name in sorted(catalog):
        h.update(f"\x00table {name}\x00".encode())
        h.update(catalog[name].write_csv().encode())
    for file, why in sorted(unreadable):
        h.update(f"\x00unreadable {file} {why}\x00".encode())
    h.update(b"\x00benchmarks\x00")
    h.update(benchmarks.rows.write_csv().encode())
    for reject in benchmarks.rejects:
        h.update(repr((reject.source_row, reject.rule, reject.detail)).encode())
    return h.hexdigest()


def is_loaded(con: duckdb.DuckDBPyConnection, wanted: str) -> bool:
    row = con.execute("select digest from baseline_load order by loaded_at desc limit 1").fetchone()
    return row is not None and row[0] == wanted


def remember(con: duckdb.DuckDBPyConnection, loaded: str, run_id: str) -> None:
    con.execute("delete from baseline_load")
    con.execute("insert into baseline_load values (?, ?, ?)",
                [loaded, run_id, datetime.now(UTC).replace(tzinfo=None)])


def catalog_changed(con: duckdb.DuckDBPyConnection, catalog_dir: Path | None) -> bool:
    """Whether the catalog a run would load now (the bundled one with `catalog_dir`'s files on
    top) differs from the one `con`'s warehouse last loaded: your catalog edited since, say."""
    from sources import bundled
    from sources.bundled.catalog import load_catalog_with_yours

    try:
        row = con.execute("select digest from baseline_load order by loaded_at desc limit 1").fetchone()
    except duckdb.CatalogException:  # written by a gpucalc that kept no digest
        return True
    catalog, unreadable = load_catalog_with_yours(catalog_dir)
    return row is None or row[0] != digest(catalog, unreadable, bundled.load_benchmark_results())
