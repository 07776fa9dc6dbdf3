"""Like-for-like prices (issue 35, item 1): what the market says each platform's GPU-hour costs,
and two platforms side by side at every provider that prices both, so that a gap between two
providers is not read as a gap between two platforms.

The market is the `platform_market` mart; the same-provider pairs are sql/compare_same_provider.sql.
`gpucalc prices` shows the market line, `gpucalc compare --platforms a,b` (and `serve`) both.
"""

from __future__ import annotations

import duckdb

from warehouse.questions.plain_text import YOUR_PRICE
from warehouse.store.sql_text import sql_text


def markets(con: duckdb.DuckDBPyConnection, platforms: list[str], bases: tuple[str, ...]) -> list[dict]:
    """The market rows of the platforms on the bases asked for, in the order both were given."""
    rows = con.execute(
        "select * from platform_market where list_contains(?, platform_id) and list_contains(?, pricing)",
        [platforms, list(bases)],
    ).pl().to_dicts()
    return sorted(rows, key=lambda r: (bases.index(r["pricing"]), platforms.index(r["platform_id"])))


def gpu_markets(con: duckdb.DuckDBPyConnection, gpu_id: str, bases: tuple[str, ...]) -> list[dict]:
    """One accelerator's market per basis: every platform built from it has the same one."""
    rows = con.execute(
        "select distinct * exclude (platform_id) from platform_market where gpu_id = ? and list_contains(?, pricing)",
        [gpu_id, list(bases)],
    ).pl().to_dicts()
    return sorted(rows, key=lambda r: bases.index(r["pricing"]))


def same_provider(con: duckdb.DuckDBPyConnection, workload_id: str, a: str, b: str,
                  bases: tuple[str, ...]) -> list[dict]:
    """Platform a against platform b at every provider that prices both on a basis: each side's
    cheapest GPU-hour there, their ratio, and the job's cost per output at those prices."""
    rows = con.execute(sql_text("warehouse.questions", "compare_same_provider.sql"),
                       {"workload": workload_id, "a": a, "b": b, "bases": list(bases)}).pl().to_dicts()
    # prices you gave for both are no provider's: they are no like-for-like pair
    return sorted(({"a": a, "b": b, **row} for row in rows if row["provider"] != YOUR_PRICE),
                  key=lambda r: bases.index(r["pricing"]))


def cheapest_gap(con: duckdb.DuckDBPyConnection, workload_id: str, a: str, b: str,
                 bases: tuple[str, ...]) -> list[dict]:
    """Per basis, how far apart the two platforms' chosen rows are, each at its cheapest provider:
    the gap a reader sees first, to set beside the same-provider one."""
    rows = con.execute(
        """select a.pricing, a.provider as a_provider, b.provider as b_provider,
                  case when a.kind = 'serving' then a.usd_per_mtok / b.usd_per_mtok
                       else a.usd_total / b.usd_total end as cost_ratio
           from platform_choice a
           join platform_choice b on b.workload_id = a.workload_id and b.pricing = a.pricing and b.platform_id = ?
           where a.workload_id = ? and a.platform_id = ? and list_contains(?, a.pricing) and a.pricing <> 'owned'""",
        [b, workload_id, a, list(bases)],
    ).pl().to_dicts()
    return sorted(rows, key=lambda r: bases.index(r["pricing"]))


def like_for_like(con: duckdb.DuckDBPyConnection, workload_id: str, platforms: list[str],
                  bases: tuple[str, ...]) -> dict:
    """Everything `compare` says about prices like for like: the markets of the named platforms and,
    for the first against each other, the same-provider pairs and the cheapest rows' gap."""
    market_bases = tuple(b for b in bases if b != "owned")  # owning is a cost model, not a market
    pairs, gaps = [], []
    for other in platforms[1:]:
        pairs += same_provider(con, workload_id, platforms[0], other, market_bases)
        gaps += [{"a": platforms[0], "b": other, **gap}
                 for gap in cheapest_gap(con, workload_id, platforms[0], other, market_bases)]
    return {"platforms": platforms, "markets": markets(con, platforms, market_bases),
            "same_provider": pairs, "cheapest_gap": gaps}
