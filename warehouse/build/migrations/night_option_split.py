"""Upgrades a warehouse from before 2026-12-04, which kept each night's options as one wide table.

Until then each night's options were whole rows of the table `night_option`; since, they are
the rows of `night_option_pair`, `night_topology` and `night_quote`, read whole through the view
`night_option` (warehouse/models/095_night_*.sql, 096_night_option.sql). The rebuild replaces a
table that became a view; before it drops this one, `move_rows` copies its rows into the three
tables, numbering each night's distinct topologies and quotes, so that the view gives back every
row and `gpucalc report --date D` rebuilds an earlier night's report as before.
"""

from __future__ import annotations

import duckdb

from warehouse.store.db import table_definition
from warehouse.store.sql_text import sql_text

TABLE = "night_option"
PAIR, TOPOLOGY, QUOTE = "night_option_pair", "night_topology", "night_quote"
# the columns that say which night and which row, not what the row is
KEYS = {"run_date", "run_id", "topology_id", "quote_id"}


def move_rows(con: duckdb.DuckDBPyConnection, models: list[tuple[str, str]]) -> dict[str, str]:
    """Copy the table `night_option`'s rows into the three tables (made from their model files if
    missing); returns them as db.objects lists them. The caller drops the table."""
    for table in (PAIR, TOPOLOGY, QUOTE):
        con.execute(table_definition(models, table))
    made = {PAIR: "table", TOPOLOGY: "table", QUOTE: "table"}
    # Nothing to move, nothing inserted. DuckDB 1.5.5 drops every row of a later insert into a
    # table in the same transaction when an insert that read an empty table came first and the
    # later one fills a row group (`insert into t select * from empty_table`, then 8,192 rows:
    # none are kept, even after the commit): the night's own snapshot, in this very rebuild.
    if con.execute(f"select count(*) from {TABLE}").fetchone()[0] == 0:
        return made
    old = _columns(con, TABLE)
    topology = [c for c in _columns(con, TOPOLOGY) if c in old and c not in KEYS]
    quote = [c for c in _columns(con, QUOTE) if c in old and c not in KEYS]
    pair = [c for c in _columns(con, PAIR) if c in old and c not in KEYS]
    con.execute(sql_text("warehouse.build.migrations", "night_option_numbered.sql",
                         topology=_list(topology), quote=_list(quote)))
    try:
        con.execute(f"""insert into {TOPOLOGY} by name
                        select distinct run_date, run_id, topology_id, {_list(topology)} from night_option_numbered""")
        con.execute(f"""insert into {QUOTE} by name
                        select distinct run_date, quote_id, {_list(quote)} from night_option_numbered""")
        con.execute(f"""insert into {PAIR} by name
                        select run_date, topology_id, quote_id, {_list(pair)} from night_option_numbered""")
    finally:
        con.execute("drop table night_option_numbered")
    return made


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [row[0] for row in con.execute(f"describe {table}").fetchall()]


def _list(columns: list[str]) -> str:
    return ", ".join(f'"{c}"' for c in columns)
