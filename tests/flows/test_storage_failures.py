"""A warehouse file that is damaged, cut short or not a database, and a disk that fills up
mid-write: every command says so in one sentence (with the way back), the warehouse is as it
was, no half-written file is left to fill the disk further, and what was ingested is not lost."""

from __future__ import annotations

import errno
import logging
import subprocess
import sys

import pytest

from tests.flows.cli_helpers import gpucalc, query
from tests.flows.test_reliability import write_quotes

SAID = "cannot be read: it is damaged, cut short or not a database"


def cut_in_half(warehouse) -> bytes:
    whole = warehouse.read_bytes()
    warehouse.write_bytes(whole[: len(whole) // 2])
    return warehouse.read_bytes()


@pytest.mark.parametrize("command", [
    ["sql", "select count(*) from gpu"],
    ["backtest"],
    ["compare", "dflash-qwen36-27b"],
    ["report", "--date", "2026-11-29"],
    ["export", "--out", "{out}"],
])
def test_every_reader_says_the_file_is_damaged_and_leaves_it_be(offline_copy, tmp_path, command):
    warehouse = offline_copy / "warehouse.duckdb"
    damaged = cut_in_half(warehouse)
    args = [part.format(out=tmp_path / "out") for part in command]
    result = gpucalc(*args, "--data-dir", str(offline_copy))
    assert result.exit_code == 1, result.output
    assert f"error: the warehouse {warehouse} {SAID}" in result.output
    assert "`gpucalc replay --date <day>`" in result.output and "Traceback" not in result.output
    assert warehouse.read_bytes() == damaged


@pytest.mark.parametrize("content", [b"", b"name,price\nx,1\n"])
def test_a_file_that_is_no_database_is_named_as_such(tmp_path, content):
    (tmp_path / "warehouse.duckdb").write_bytes(content)
    result = gpucalc("sql", "select 1", "--data-dir", str(tmp_path))
    assert result.exit_code == 1 and SAID in result.output and "not a valid DuckDB database file" in result.output


def test_a_damaged_lake_catalog_is_named_too(tmp_path):
    catalog = tmp_path / "catalog.sqlite"
    catalog.write_bytes(b"not sqlite at all" * 100)
    result = gpucalc("sql", "select 1", "--data-dir", str(tmp_path), "--warehouse", f"ducklake:sqlite:{catalog}")
    assert result.exit_code == 1, result.output
    assert f"the warehouse ducklake:sqlite:{catalog} (its catalog file) {SAID}" in result.output
    assert catalog.read_bytes() == b"not sqlite at all" * 100


def test_sources_still_lists_the_sources(offline_copy):
    cut_in_half(offline_copy / "warehouse.duckdb")
    result = gpucalc("sources", "--data-dir", str(offline_copy))
    assert result.exit_code == 0 and "skypilot" in result.output and SAID in result.output


def test_an_ingest_into_a_damaged_warehouse_keeps_its_payload_for_the_replay_that_recovers(offline_copy, tmp_path):
    warehouse = offline_copy / "warehouse.duckdb"
    damaged = cut_in_half(warehouse)
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29", "--data-dir", str(offline_copy))
    assert result.exit_code == 1 and SAID in result.output and "Traceback" not in result.output, result.output
    assert warehouse.read_bytes() == damaged and not (offline_copy / "warehouse.duckdb.next").exists()
    assert (offline_copy / "raw" / "quotes_file" / "2026-11-29" / "q.csv").read_bytes() == quotes.read_bytes()
    # the way back the message gives: the file moved aside, the kept day replayed
    warehouse.rename(offline_copy / "damaged.duckdb")
    result = gpucalc("replay", "--date", "2026-11-29", "--data-dir", str(offline_copy))
    assert result.exit_code == 0 and "quotes_file: ok, 1 rows loaded" in result.output, result.output
    assert query(offline_copy, "select usd_per_gpu_hour from price_quote where provider = 'acme'") == [(2.5,)]
    # the failed ingest, journalled beside the warehouse it could not write, is in the new one's log
    failed = query(offline_copy, "select mode, message from run_log where status = 'failed'")
    assert [mode for mode, _ in failed] == ["ingest"] and SAID in failed[0][1]


def test_a_run_shows_prefects_one_line_not_its_traceback():
    from prefect.logging.handlers import PrefectConsoleHandler

    from flows import console

    console.terse_prefect_errors()
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, PrefectConsoleHandler)]
    assert handlers
    try:
        raise ValueError("the cause")
    except ValueError:
        record = logging.getLogger("prefect.task_runs").makeRecord(
            "prefect.task_runs", logging.ERROR, __file__, 1, "Task run failed", (), sys.exc_info())
    assert all(h.filter(record) for h in handlers)
    assert record.exc_info is None and "Traceback" not in logging.Formatter().format(record)


def test_a_disk_that_fills_while_the_warehouse_is_copied_leaves_it_and_no_half_copy(offline_copy, tmp_path,
                                                                                     monkeypatch):
    from warehouse.store import write_session

    warehouse = offline_copy / "warehouse.duckdb"
    before = warehouse.read_bytes()

    def fills_up(source, target):  # half the copy lands, then the disk is full
        with open(target, "wb") as out:
            out.write(before[: len(before) // 2])
        raise OSError(errno.ENOSPC, "No space left on device", str(source), None, str(target))

    monkeypatch.setattr(write_session.shutil, "copyfile", fills_up)
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29", "--data-dir", str(offline_copy))
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert f"error: the disk is full writing {warehouse}.next (no space left on device); the warehouse is as it " \
           "was. Free some space and run the command again" in result.output
    assert warehouse.read_bytes() == before and not (offline_copy / "warehouse.duckdb.next").exists()
    assert len(list((offline_copy / "run_journal").glob("*.json"))) == 1  # the failed ingest, for the next writer
    monkeypatch.undo()  # space freed: the kept day replays
    result = gpucalc("replay", "--date", "2026-11-29", "--data-dir", str(offline_copy))
    assert result.exit_code == 0 and "quotes_file: ok, 1 rows loaded" in result.output, result.output


def test_a_disk_that_fills_while_a_payload_is_kept_leaves_no_cut_file(offline_copy, tmp_path, monkeypatch):
    from sources.kit import raw_store

    def full(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(raw_store.os, "fsync", full)
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29", "--data-dir", str(offline_copy))
    assert result.exit_code == 1 and "error: the disk is full (no space left on device)" in result.output
    assert not [p for p in (offline_copy / "raw").rglob("*") if p.is_file()]


def test_duckdb_running_out_of_disk_is_the_same_sentence():
    import duckdb

    from flows.console import disk_full

    said = duckdb.TransactionException('Failed to commit: Could not write file "w.wal": No space left on device')
    assert disk_full(said).startswith("the disk is full (no space left on device)")
    assert disk_full(duckdb.IOException("Could not set lock on file")) is None


HOLDER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])  # read-write, as the DuckDB CLI opens a file
print("open", flush=True)
sys.stdin.readline()
"""


def test_a_warehouse_another_program_holds_read_write_is_one_sentence_and_writes_still_land(offline_copy, tmp_path):
    warehouse = offline_copy / "warehouse.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(warehouse)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        result = gpucalc("sql", "select count(*) from gpu", "--data-dir", str(offline_copy))
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert f"error: the warehouse {warehouse} is open read-write in another program (Conflicting lock is " \
               f"held in" in result.output and f"(PID {holder.pid})); DuckDB lets nobody else read" in result.output
        quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
        result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29",
                         "--data-dir", str(offline_copy))
        assert result.exit_code == 0 and "1 rows loaded" in result.output, result.output
    finally:
        holder.communicate("\n", timeout=30)
    assert query(offline_copy, "select count(*) from price_quote where provider = 'acme'") == [(1,)]
