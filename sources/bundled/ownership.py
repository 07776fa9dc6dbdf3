"""What an owned system costs per useful hour, for quotes that give ownership terms.

One formula and one set of defaults: the formula is a SQL macro (sources/data/ownership.sql,
which the warehouse applies with its schema), evaluated here by DuckDB, and terms a row leaves out take
the catalog's assumptions (pue, colo_usd_per_kw_month, ownership_utilization), as the catalog's
own platforms do.
"""

from __future__ import annotations

import threading
from functools import cache
from importlib import resources

import duckdb

from sources.bundled.catalog import load_table

# quotes-file field -> the assumption that fills it when the row leaves it out
DEFAULT_ASSUMPTION = {
    "pue": "pue",
    "colo_usd_per_kw_month": "colo_usd_per_kw_month",
    "utilization": "ownership_utilization",
}
_LOCK = threading.Lock()


@cache
def defaults() -> dict[str, float]:
    assumptions = dict(load_table("assumption").select("name", "value").iter_rows())
    return {field: float(assumptions[name]) for field, name in DEFAULT_ASSUMPTION.items()}


# Its place among the warehouse's schema files: after the physics macros it may one day call.
SCHEMA_NAME = "021_ownership.sql"


def macro_sql() -> str:
    """The owned_usd_per_hour macro, as both this module and the warehouse's schema run it."""
    return resources.files("sources").joinpath("data/ownership.sql").read_text()


@cache
def _formula() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:")
    con.execute(macro_sql())
    return con


def owned_usd_per_hour(
    purchase_usd: float,
    years: float,
    power_kw: float,
    usd_per_kwh: float,
    pue: float | None = None,
    colo_usd_per_kw_month: float | None = None,
    utilization: float | None = None,
) -> float:
    """USD per useful hour of one owned instance (missing terms: the catalog's assumptions)."""
    given = {"pue": pue, "colo_usd_per_kw_month": colo_usd_per_kw_month, "utilization": utilization}
    terms = {k: v if v is not None else defaults()[k] for k, v in given.items()}
    with _LOCK:  # one shared connection; parsers may run in threads
        return _formula().execute(
            "select owned_usd_per_hour(?, ?, ?, ?, ?, ?, ?)",
            [purchase_usd, years, power_kw, terms["pue"], usd_per_kwh, terms["colo_usd_per_kw_month"],
             terms["utilization"]],
        ).fetchone()[0]
