"""MotherDuck: the warehouse as a cloud DuckDB database (`md:<database>`).

The token comes from the environment only (`motherduck_token`, or `MOTHERDUCK_TOKEN`), never
from a flag or a file in the repository. The motherduck extension is LOADed from its wheel
(pinned with DuckDB in pyproject.toml), so only MotherDuck itself needs the network, not
DuckDB's extension server. Without a token, or without a route to MotherDuck, opening the
warehouse is one sentence saying which.
"""

from __future__ import annotations

import duckdb

from sources.kit.environment import env
from warehouse.store import lake, settings
from warehouse.store.location import BadWarehouse, Location, redact

TOKEN_VARIABLES = ("motherduck_token", "MOTHERDUCK_TOKEN")


def token() -> str | None:
    return next((value for name in TOKEN_VARIABLES if (value := env(name))), None)


def connect(where: Location, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the MotherDuck database attached and in use."""
    secret = token()
    if not secret:
        raise BadWarehouse(
            f"{where.shown} needs a MotherDuck access token: set motherduck_token in the environment "
            "(MotherDuck: Settings > Access Tokens)"
        )
    con = duckdb.connect(":memory:", config=settings.duckdb_config(**lake.NO_AUTOLOAD))
    try:
        lake.load(con, "motherduck")
        con.execute(f"set motherduck_token = '{secret.replace(chr(39), '')}'")
        # saas_mode keeps a reader's session off this machine's files; a writer needs no local files either
        con.execute(f"attach 'md:{where.target}?saas_mode=true' {'(read_only)' if read_only else ''}")
        con.execute(f'use "{where.target}"')
    except duckdb.Error as exc:
        con.close()
        raise unreachable(where, exc) from lake.without_secrets(exc)
    return con


def unreachable(where: Location, exc: Exception) -> BadWarehouse:
    """One sentence for a MotherDuck that could not be opened: no route to it, or it said no."""
    text = redact(" ".join(str(exc).split()))
    if any(s in text for s in ("Could not establish connection", "Failed to download", "Could not resolve")):
        return BadWarehouse(f"could not reach MotherDuck for {where.shown}: no network connection to MotherDuck "
                            "from this machine")
    why = text.rsplit("threw an exception:", 1)[-1].strip(' "')[:200] or type(exc).__name__
    return BadWarehouse(f"MotherDuck refused {where.shown}: {why} (check motherduck_token)")
