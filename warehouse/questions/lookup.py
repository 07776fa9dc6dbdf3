"""Look-ups: what the catalog holds (`gpucalc list`) and tonight's quotes for one accelerator
(`gpucalc prices`), read from the warehouse through the read-only door.

Each listing is its statement in sql/lookup_*.sql plus a `what` column: what the row is, in
words (a workload's scenario and limits or its tokens and epochs, a platform's systems and
scale-up domain, an accelerator's memory and dense peaks, a model's architecture). A price
row says where it came from: a live source, your file, the bundled snapshot, or the
ownership model (what owning the platform costs per hour on your terms).
"""

from __future__ import annotations

from datetime import date

import duckdb

from sources import bundled
from warehouse.questions.lookup_text import gpu_what, model_what, platform_what, workload_what
from warehouse.store.sql_text import sql_text

KINDS = ("workloads", "platforms", "gpus", "models")
# price_quote.source values that are not a source module's name
ORIGINS = {bundled.PRICE_SOURCE: "bundled snapshot", "ownership_model": "ownership model"}


def _rows(con: duckdb.DuckDBPyConnection, name: str, params: list | None = None) -> list[dict]:
    return con.execute(sql_text("warehouse.questions", name), params or []).pl().to_dicts()


def listing(con: duckdb.DuckDBPyConnection, kind: str) -> list[dict]:
    """Every row of one kind (`KINDS`), each with `what` it is in words."""
    if kind not in KINDS:
        raise ValueError(f"{kind!r}: list one of {', '.join(KINDS)}")
    describe = {"workloads": workload_what, "platforms": platform_what, "gpus": gpu_what, "models": model_what}[kind]
    return [{**row, "what": describe(row)} for row in _rows(con, f"lookup_{kind}.sql")]


def night(con: duckdb.DuckDBPyConnection) -> date | None:
    """The night the warehouse holds (its newest run), or None before any run."""
    row = con.execute("select max(run_date) from run_context").fetchone()
    return row[0] if row else None


def prices(con: duckdb.DuckDBPyConnection, gpu_id: str, bases: tuple[str, ...]) -> list[dict]:
    """Tonight's quotes for one accelerator on the bases asked for, cheapest per GPU-hour first,
    each with `origin`: live, your file, bundled snapshot or ownership model; the stale ones
    (older than the freshness window, listed but ranked nowhere) after the fresh ones."""
    rows = _rows(con, "lookup_prices.sql", [gpu_id, list(bases), gpu_id, list(bases)])
    return [{**row, "basis": basis(row), "origin": origin(row["source"])} for row in rows]


def basis(row: dict) -> str:
    """The price basis as shown: a marketplace's lowest listing and a stale quote are marked (they
    price no estimate)."""
    return (row["pricing"] + (" (lowest listing)" if row.get("price_statistic") == "lowest" else "")
            + (" (stale: not ranked)" if row.get("stale") else ""))


def origin(source: str | None) -> str:
    """Where a quote came from, in words: a live source, your file, the bundled snapshot."""
    from sources.kit.registry import all_specs

    if source in ORIGINS:
        return ORIGINS[source]
    spec = all_specs().get(source or "")
    if spec is None:
        return source or "unknown"
    return "live" if spec.live else "your file"
