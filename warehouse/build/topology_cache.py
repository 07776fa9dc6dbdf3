"""The topology models' tables in gpucalc's cache (warehouse/store/cache.py), by the digest of their inputs.

The digest (warehouse/build/topology_inputs.py) covers every row the topology models may read and the
SQL that computes them, so their tables follow from it. A warehouse that keeps its own tables
from one rebuild to the next needs no cache; this one serves the warehouses that do not have
them yet with the same inputs: a DuckLake beside the DuckDB file, a fresh data directory
replayed from kept payloads, the scratch copy in which `gpucalc predict`, `whatif` or `decide`
asks the same question again. Copying the tables back costs a fraction of computing them
(docs/scale.md).

An entry is a folder: one Arrow IPC file per table and `manifest.json`, which names the tables
in the order the models make them, each column's DuckDB type (the copy is cast back to it) and
the Arrow schema as written. An entry whose files do not read back as written is a miss, found
before anything is written, so a damaged cache costs a recompute and never fails a rebuild.
"""

from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pyarrow as pa
from pyarrow import feather

from warehouse.build import held
from warehouse.store import cache
from warehouse.store.db import MODEL_DEFINES

KIND = "topology"
FORMAT = "1"  # what an entry holds and how; a change makes every older entry a miss
MANIFEST = "manifest.json"
# a column type the copy casts to: a plain DuckDB type, never SQL of the manifest's own (a type
# outside it, such as a STRUCT, is a miss)
PLAIN_TYPE = re.compile(r"[A-Z][A-Z0-9_]*(\(\d+(, ?\d+)?\))?(\[\])?")


def restore(con: duckdb.DuckDBPyConnection, digest: str, topology_models: list[tuple[str, str]]) -> bool:
    """Make the topology models' tables from the entry of `digest` and their views from their
    SQL; False, having changed nothing, where there is no usable entry."""
    folder = cache.folder(KIND, _key(digest))
    entry = _read(folder, _tables(topology_models)) if folder is not None else None
    if entry is None:
        return False
    for table, (frame, columns) in entry.items():
        source = f"topology_cache_{table}"
        casts = ", ".join(f"{_quoted(name)}::{type_} as {_quoted(name)}" for name, type_ in columns)
        con.register(source, frame)
        try:
            con.execute(f"create or replace table {table} as select {casts} from {source}")
        finally:
            con.unregister(source)
    for file, sql in topology_models:
        if all(kind == "view" for kind, _name in MODEL_DEFINES.findall(sql)):
            con.execute(held.statement(con, file, sql))
    return True


def keep(con: duckdb.DuckDBPyConnection, digest: str, topology_models: list[tuple[str, str]]) -> None:
    """Keep the topology tables just computed from the inputs of `digest` (if none are kept yet)."""

    def fill(folder: Path) -> None:
        manifest = {}
        # Arrow compresses and writes a table without the GIL, so the next one is read from
        # DuckDB meanwhile (docs/scale.md)
        with ThreadPoolExecutor(max_workers=1) as writer:
            written = []
            for table in _tables(topology_models):
                relation = con.sql(f"select * from {table}")
                columns = [[name, str(type_)] for name, type_ in zip(relation.columns, relation.types, strict=True)]
                frame = relation.to_arrow_table()
                # LZ4 Arrow IPC: faster than Parquet to write and to read back (docs/scale.md)
                written.append(writer.submit(feather.write_feather, frame, folder / f"{table}.arrow"))
                manifest[table] = {"columns": columns, "arrow": str(frame.schema)}
            for done in written:
                done.result()
        (folder / MANIFEST).write_text(json.dumps(manifest))

    try:
        cache.write_folder(KIND, _key(digest), fill)
    except pa.ArrowException:  # a table Arrow cannot hold: only a cache not kept
        return


def _read(folder: Path, tables: list[str]) -> dict[str, tuple[pa.Table, list[list[str]]]] | None:
    """Each table's frame and DuckDB columns, or None unless every file reads back as written."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        if list(manifest) != tables:
            return None
        entry = {table: (feather.read_table(folder / f"{table}.arrow"), manifest[table]["columns"]) for table in tables}
        if any(str(frame.schema) != manifest[table]["arrow"] or frame.column_names != [c[0] for c in columns]
               or not all(PLAIN_TYPE.fullmatch(type_) for _name, type_ in columns)
               for table, (frame, columns) in entry.items()):
            return None
    # OSError: a missing or unreadable file; ValueError: JSON's and Arrow's (ArrowInvalid);
    # KeyError, TypeError, IndexError: a manifest of another shape
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    return entry


def _key(digest: str) -> str:
    # DuckDB computes the tables (and the digest's row hashes): another version, another entry
    return hashlib.sha256(f"{FORMAT}:{duckdb.__version__}:{digest}".encode()).hexdigest()


def _tables(topology_models: list[tuple[str, str]]) -> list[str]:
    """The tables the topology models leave, each once, in the order they are first made."""
    return list(dict.fromkeys(name for _file, sql in topology_models
                              for kind, name in MODEL_DEFINES.findall(sql) if kind == "table"))


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
