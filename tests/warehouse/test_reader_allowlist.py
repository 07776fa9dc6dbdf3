"""What a reader of a DuckLake may call: DuckDB's read-only table functions, DuckLake's history
functions and the warehouse's own macros, qualified or not; nothing that writes a file.

One small lake with a SQLite catalog (two inserts: two Parquet files a merge would rewrite) and
one table macro of its own, as the warehouse's models define them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from tests.flows.cli_helpers import gpucalc
from warehouse.store import lake
from warehouse.store.location import parse
from warehouse.store.reader import connect_reader


@pytest.fixture(scope="module")
def small_lake(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lake")
    con = lake.connect(parse(_uri(folder)), data_path=f"{folder / 'files'}/")
    try:
        con.execute("create table price_quote (quote_id int, pricing varchar, usd_per_hour double)")
        con.execute("insert into price_quote values (1, 'spot', 1.5), (2, 'on_demand', 2.5)")
        con.execute("insert into price_quote values (3, 'spot', 0.5)")
        con.execute("create macro quotes_up_to(n) as table select * from price_quote where quote_id <= n")
    finally:
        con.close()
    connect_reader(_uri(folder)).close()  # SQLite's own side files exist before the probes
    return folder


def _uri(folder: Path) -> str:
    return f"ducklake:sqlite:{folder / 'catalog.sqlite'}"


def _state(folder: Path) -> tuple[list[str], str]:
    """The lake's Parquet files by name, and the catalog's bytes by digest."""
    files = sorted(p.relative_to(folder).as_posix() for p in (folder / "files").rglob("*") if p.is_file())
    return files, hashlib.sha256((folder / "catalog.sqlite").read_bytes()).hexdigest()


WRITERS = [
    "select * from lake.merge_adjacent_files()",
    "select * from merge_adjacent_files()",  # the lake is in use: its macros resolve unqualified too
    "select * from lake.main.merge_adjacent_files()",
    "select * from lake.set_commit_message('someone', 'a message')",
    "select * from set_commit_message('someone', 'a message')",
    "select * from lake.set_option('parquet_row_group_size', 10)",
    "select * from ducklake_merge_adjacent_files('lake')",
    "select * from (select 1) join lake.merge_adjacent_files() on true",
    "with m as (from lake.merge_adjacent_files()) select count(*) from m",
    "pivot (from lake.merge_adjacent_files()) on table_name using count(*)",
    "select * from checkpoint()",
    "select * from query('select 1')",
    "select murmur3_32('x')",  # an extension's scalar function: not on the list either
    # these show a catalog's connection string, password included
    "select path from duckdb_databases()",
    "select value from duckdb_settings()",
    "select current_setting('threads')",
]


def test_a_lake_reader_refuses_every_call_that_is_not_on_the_list_and_writes_nothing(small_lake):
    before = _state(small_lake)
    result = gpucalc("sql", WRITERS[0], "--warehouse", _uri(small_lake))
    assert result.exit_code == 2, result.output
    assert result.output == ("SQL error: merge_adjacent_files is not allowed: a reader calls "
                             "only DuckDB's read-only functions, DuckLake's history and the warehouse's own macros\n")
    reader = connect_reader(_uri(small_lake))
    try:
        for query in WRITERS[1:]:
            with pytest.raises(duckdb.PermissionException, match="is not allowed: a reader calls only"):
                reader.execute(query).fetchall()
    finally:
        reader.close()
    assert _state(small_lake) == before


def test_a_lake_reader_reads_its_history_its_macros_and_pivots(small_lake):
    reader = connect_reader(_uri(small_lake))
    try:
        def rows(query: str) -> list[tuple]:
            return reader.execute(query).fetchall()

        assert rows("select quote_id from quotes_up_to(2) order by all") == [(1,), (2,)]
        assert rows("select count(*) from lake.main.quotes_up_to(3)") == [(3,)]
        assert rows("pivot price_quote on pricing using count(*) group by quote_id order by all") == [
            (1, 0, 1), (2, 1, 0), (3, 0, 1)]
        assert rows("select on_demand, spot from (pivot (select pricing, usd_per_hour from price_quote) "
                    "on pricing using sum(usd_per_hour))") == [(2.5, 2.0)]
        assert rows("select pricing, spot from (pivot (select quote_id, pricing, coalesce(round(usd_per_hour), 0)::int "
                    "as usd from price_quote) on pricing using sum(usd) group by pricing) order by all") == [
            ("on_demand", None), ("spot", 3)]
        assert rows("select unnest([1, 2]) as x order by x") == [(1,), (2,)]
        latest = rows("select max(snapshot_id) from ducklake_snapshots('lake')")
        assert rows("select max(snapshot_id) from lake.snapshots()") == latest
        assert rows("select max(snapshot_id) from snapshots()") == latest
        assert rows("select count(*) from range(3) r(x) join unnest([1, 2]) u(y) on x = y") == [(2,)]
        assert rows("select count(*) > 0 from duckdb_tables()") == [(True,)]
    finally:
        reader.close()


def test_the_lakes_maintenance_macros_are_not_keywords_a_pivot_could_pass_for_syntax():
    """A PIVOT's calls are read from its text, where a keyword before `(` is syntax (`exists(`)."""
    keywords = {name for (name,) in duckdb.execute("select keyword_name from duckdb_keywords()").fetchall()}
    writers = {"merge_adjacent_files", "set_option", "set_commit_message", "expire_snapshots", "cleanup_old_files",
               "delete_orphaned_files", "rewrite_data_files", "flush_inlined_data", "add_data_files"}
    assert not writers & keywords
