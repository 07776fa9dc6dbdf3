"""What `GPUCALC_WAREHOUSE` (or `--warehouse`) names: a DuckDB file, a DuckLake, or MotherDuck.

One string says where the warehouse is, so it can travel as a plain value (a Prefect task
parameter, an environment variable on another worker):

    /srv/gpucalc/warehouse.duckdb          a DuckDB file (the default: <data-dir>/warehouse.duckdb)
    ducklake:/srv/gpucalc/catalog.ducklake a DuckLake whose catalog is a DuckDB file
    ducklake:sqlite:/srv/gpucalc/cat.sqlite a DuckLake with a SQLite catalog (many local processes)
    ducklake:postgres:host=db dbname=lake  a DuckLake with a PostgreSQL catalog (many machines)
    md:gpucalc                              a MotherDuck database (token from $motherduck_token)

Parsing is pure (no DuckDB, no files touched): relative file paths are made absolute here,
once, so every process and worker that receives the string means the same file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sources.kit.environment import env

FILE, MEMORY, DUCKLAKE, MOTHERDUCK = "file", "memory", "ducklake", "motherduck"
CATALOG_KINDS = ("duckdb", "sqlite", "postgres")


# A password or token written into a location: libpq's `password=...` (quoted or not), a
# MotherDuck `motherduck_token=...`, and the `user:password@` of a URL.
_SECRET_SETTING = re.compile(
    r"""(?P<key>\b(?:password|passwd|motherduck_token|token|access_token|secret|api_key)\s*=\s*)"""
    r"""(?:'(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&;'"]*[^\s&;'":,])""",  # not the ": " after it
    re.I,
)
_URL_PASSWORD = re.compile(r"(?P<key>\b[a-z][\w+.-]*://[^/\s:@]*:)[^@\s]*(?=@)", re.I)
HIDDEN = "***"
# Where a secret's value may be set for a process: its literal value is hidden wherever it shows.
SECRET_VARIABLES = ("motherduck_token", "MOTHERDUCK_TOKEN", "PGPASSWORD")
_SHORTEST_HIDDEN_VALUE = 4  # shorter values would blank out ordinary words in a message


def redact(text: str) -> str:
    """`text` with every password and token in it replaced by ***: what any message, log line or
    stored row may say about a warehouse location or an error connecting to one."""
    text = _SECRET_SETTING.sub(lambda m: m["key"] + HIDDEN, text)
    text = _URL_PASSWORD.sub(lambda m: m["key"] + HIDDEN, text)
    for value in _secret_values():
        text = text.replace(value, HIDDEN)
    return text


def remember_secrets(location: str) -> None:
    """Hide the passwords and tokens of a location given on the command line (not in
    GPUCALC_WAREHOUSE) wherever this process shows an error that echoes one without its key."""
    _given_locations.add(location)


_given_locations: set[str] = set()


def _secret_values() -> set[str]:
    """The secrets this process was given: the password and token settings in GPUCALC_WAREHOUSE
    or --warehouse, and the variables drivers read theirs from (an error may echo one without its key)."""
    values = {env(name, "") for name in SECRET_VARIABLES}
    for configured in (env("GPUCALC_WAREHOUSE", ""), *_given_locations):
        for found in (*_SECRET_SETTING.finditer(configured), *_URL_PASSWORD.finditer(configured)):
            values.add(configured[found.end("key"):found.end()].strip("'\""))
    return {v for v in values if len(v) >= _SHORTEST_HIDDEN_VALUE}


class _RedactedMessage(Exception):
    """An error whose message never carries a password or token, however it was built."""

    def __init__(self, *args: object):
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class BadWarehouse(_RedactedMessage, ValueError):
    """A warehouse setting gpucalc cannot use; the message is one sentence saying why."""


class UnreadableWarehouse(_RedactedMessage, RuntimeError):
    """A warehouse file (or a lake's catalog) that cannot be opened: damaged, cut short, or not a database."""


# What DuckDB and SQLite say on opening such a file (a lock another process holds, or a
# permission, is not damage and keeps its own error)
DAMAGED = re.compile(r"not a valid DuckDB database|Could not read enough bytes|corrupt|checksum|version number"
                     r"|file is not a database|disk image is malformed", re.I)


class WarehouseHeldOpen(UnreadableWarehouse):
    """Another program (not gpucalc) holds the warehouse file open read-write: DuckDB then lets
    no other process open it, not even to read."""


def held_open(name: str, said: str) -> WarehouseHeldOpen:
    return WarehouseHeldOpen(
        f"the warehouse {name} is open read-write in another program ({said}); DuckDB lets nobody else read "
        "it meanwhile. Close it there, or open it there read-only (`duckdb -readonly`, "
        "`duckdb.connect(..., read_only=True)`), and run the command again; gpucalc's own writes do not wait for it"
    )


def unreadable(name: str, said: str) -> UnreadableWarehouse:
    """The one sentence for a damaged warehouse file: what it is, that it is untouched, the way back."""
    return UnreadableWarehouse(
        f"the warehouse {name} cannot be read: it is damaged, cut short or not a database ({said}); "
        "gpucalc has not changed it. Move it aside: `gpucalc run` then starts a new warehouse, and "
        "`gpucalc replay --date <day>` reloads each day kept under raw/ in the data directory"
    )


@dataclass(frozen=True)
class Location:
    kind: str  # file | memory | ducklake | motherduck
    target: str  # file path; DuckLake catalog (path or connection string); MotherDuck database
    catalog: str | None = None  # DuckLake only: duckdb | sqlite | postgres

    @property
    def uri(self) -> str:
        """The canonical spelling: what settings hand around and what messages show."""
        if self.kind == DUCKLAKE:
            return "ducklake:" + (self.target if self.catalog == "duckdb" else f"{self.catalog}:{self.target}")
        if self.kind == MOTHERDUCK:
            return f"md:{self.target}"
        return self.target

    @property
    def shown(self) -> str:
        """The canonical spelling with its passwords and tokens hidden: what messages and logs show."""
        return redact(self.uri)

    @property
    def local_file(self) -> Path | None:
        """The one local DuckDB file whose copy-and-swap keeps readers out of a writer's way.

        A DuckDB file warehouse, or the DuckDB catalog file of a DuckLake: both allow a single
        process at a time, so readers get the published copy (warehouse/store/write_session.py).
        """
        if self.kind == FILE or (self.kind == DUCKLAKE and self.catalog == "duckdb"):
            return Path(self.target)
        return None

    @property
    def catalog_file(self) -> Path | None:
        """A DuckLake catalog that lives in a local file (DuckDB or SQLite), else None."""
        return Path(self.target) if self.kind == DUCKLAKE and self.catalog != "postgres" else None

    def describe(self) -> str:
        if self.kind == DUCKLAKE:
            if self.catalog == "postgres":
                return "the DuckLake warehouse with a PostgreSQL catalog"
            return f"the DuckLake warehouse with the {self.catalog} catalog {self.target}"
        if self.kind == MOTHERDUCK:
            return f"the MotherDuck database {redact(self.target)}"
        return f"the warehouse {self.target}"


def parse(value: str) -> Location:
    """Read a warehouse setting; a spelling gpucalc cannot use raises BadWarehouse."""
    text = value.strip()
    if not text:
        raise BadWarehouse("the warehouse setting is empty: give a DuckDB file, ducklake:<catalog> or md:<database>")
    if text == ":memory:":
        return Location(MEMORY, text)
    if text.startswith(("md:", "motherduck:")):
        database = text.split(":", 1)[1]
        if not database or database.startswith("?"):
            raise BadWarehouse(f"{text}: name the MotherDuck database, e.g. md:gpucalc")
        return Location(MOTHERDUCK, database)
    if text.startswith("ducklake:"):
        return _ducklake(text, text.removeprefix("ducklake:"))
    if "://" in text:
        raise BadWarehouse(
            f"{text} is not a warehouse gpucalc can write: for object storage use a DuckLake, "
            "ducklake:<catalog> with GPUCALC_LAKE_DATA_PATH set to the bucket"
        )
    return Location(FILE, _absolute(text))


def _ducklake(text: str, catalog: str) -> Location:
    kind, _, rest = catalog.partition(":")
    if kind in ("postgres", "postgresql"):
        if not rest.strip():
            raise BadWarehouse(f"{text}: give the PostgreSQL connection, e.g. ducklake:postgres:dbname=lake host=db")
        return Location(DUCKLAKE, rest.strip(), "postgres")
    if kind in ("sqlite", "duckdb") and rest:
        return Location(DUCKLAKE, _absolute(rest), kind)
    if kind in ("mysql",):
        raise BadWarehouse(f"{text}: gpucalc supports DuckLake catalogs in DuckDB, SQLite or PostgreSQL")
    if not catalog:
        raise BadWarehouse(f"{text}: name the catalog, e.g. ducklake:sqlite:data/catalog.sqlite")
    return Location(DUCKLAKE, _absolute(catalog), "duckdb")


def _absolute(path: str) -> str:
    return str(Path(path).expanduser().resolve())
