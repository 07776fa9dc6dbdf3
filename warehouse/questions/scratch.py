"""A private, in-memory copy of the warehouse for what-if questions and predictions.

Commands that change inputs (a measured baseline, a precision, a GPU count) must not touch
the nightly warehouse, so they copy its reference tables and observations into memory and
run the same models there. Without a warehouse yet, the bundled data stands in.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from sources.kit import clock
from warehouse.store import db
from warehouse.store.reader import connect_reader

SCRATCH_RUN = "scratch"

COPIED_TABLES = (
    "gpu",
    "platform",
    "model",
    "workload",
    "gpu_alias",
    "gpu_instance",
    "efficiency_default",
    "stage_efficiency_default",
    "assumption",
    "link",
    "convergence",
    "provider_capacity",
    "api_price",
    "benchmark_result",
    "price_quote",
)


def scratch_copy(warehouse: str | None, catalog_dir: Path | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse holding the inputs of `warehouse` (any kind), else the bundled data;
    the catalog is the one a run would load now (the bundled one with `catalog_dir`'s files on top).

    The inputs are read through the read-only door and copied over Arrow, so a DuckDB file,
    a DuckLake and MotherDuck are read the same way and none of them is ever written.
    """
    from warehouse.loading.baseline import catalog_changed

    con = db.connect(":memory:")
    if warehouse and db.warehouse_exists(warehouse):
        source = connect_reader(warehouse)
        try:
            copy_inputs(source, con)
            changed = catalog_dir is not None and catalog_changed(source, catalog_dir)
        finally:
            source.close()
        if changed:  # your catalog edited since the last run (a model added for `serve --model`):
            _load_catalog(con, catalog_dir)  # the answer is about the catalog you have, as the next run loads it
        else:
            _fill_new_assumptions(con)
    else:
        _load_bundled(con, catalog_dir)
    return con


def catalog_notes(con: duckdb.DuckDBPyConnection, limit: int = 5) -> list[str]:
    """What of your catalog the private copy could not take: each rejected row or file, in one line."""
    from warehouse.loading.reference_load import SOURCE

    rows = con.execute(
        "select detail from rejected_row where run_id = ? and source = ? order by target_table, source_row, detail",
        [SCRATCH_RUN, SOURCE],
    ).fetchall()
    notes = [f"your catalog: {detail}" for (detail,) in rows[:limit]]
    if len(rows) > limit:
        notes.append(f"your catalog: {len(rows) - limit} more rows rejected (the nightly's report lists them all)")
    return notes


def copy_inputs(source: duckdb.DuckDBPyConnection, con: duckdb.DuckDBPyConnection,
                quotes_of: list[str] | None = None) -> None:
    """Copy the input tables of `source` into `con` (both with the schema applied); with
    `quotes_of`, only the price quotes of those accelerators (an answer about their platforms
    alone need not carry a whole market of millions of quotes)."""
    present = {r[0] for r in source.execute(
        "select table_name from duckdb_tables() where database_name = current_database()").fetchall()}
    for table in COPIED_TABLES:
        if table in present:  # a warehouse written by an older gpucalc lacks the newer tables
            picked = ("select * from price_quote where list_contains(?, gpu)", [quotes_of]) \
                if table == "price_quote" and quotes_of is not None else (f"select * from {table}", [])
            con.register("source_rows", source.execute(*picked).fetch_arrow_table())
            con.execute(f"insert into {table} by name select * from source_rows")
            con.unregister("source_rows")


def _fill_new_assumptions(con: duckdb.DuckDBPyConnection) -> None:
    """A warehouse written by an older gpucalc lacks the assumptions added since (the next run
    loads them): the bundled values fill those gaps, and the warehouse's own stay."""
    from sources.bundled.catalog import load_table

    con.register("bundled_assumptions", load_table("assumption").to_arrow())
    con.execute(
        """insert into assumption by name
           select b.* from bundled_assumptions b anti join assumption a on a.name = b.name"""
    )
    con.unregister("bundled_assumptions")


def _load_bundled(con: duckdb.DuckDBPyConnection, catalog_dir: Path | None) -> None:
    """The bundled data, with your own catalog rows (`<data>/catalog/`) on top, as a run loads them."""
    from sources import bundled
    from warehouse.loading.load import load_benchmarks, load_prices

    run = _load_catalog(con, catalog_dir)
    load_benchmarks(con, "bundled", bundled.load_benchmark_results(), run, [bundled.BENCHMARK_PAYLOAD])
    load_prices(con, bundled.PRICE_SOURCE, bundled.load_price_snapshot(), run, [bundled.PRICE_PAYLOAD])


def _load_catalog(con: duckdb.DuckDBPyConnection, catalog_dir: Path | None):
    """The bundled catalog with your rows on top; what of yours cannot be taken goes to rejected_row.
    Returns the private copy's run."""
    from sources.bundled.catalog import load_catalog_with_yours
    from warehouse.loading.load import RunContext
    from warehouse.loading.reference_load import load_reference

    run = RunContext.new(SCRATCH_RUN, clock.today())
    catalog, unreadable = load_catalog_with_yours(catalog_dir)
    load_reference(con, catalog, run, unreadable)
    return run
