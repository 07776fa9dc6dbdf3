"""Two ingests of a corrected file racing: the warehouse ends at the version raw/ keeps.

Real processes: the test holds the write turn while both ingests start and wait for it, then
stops the first (SIGSTOP) so the second writes first, and lets the first go on afterwards.
An ingest that parsed before waiting would then load its older version over the newer one.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from datetime import date
from pathlib import Path

from tests.flows.cli_helpers import query
from tests.flows.test_reliability import GPUCALC, hold_lock, write_quotes
from warehouse.loading.backfill import ingest_file
from warehouse.store.workspace import Workspace

DAY = "2026-11-28"


def start_ingest(data: Path, quotes: Path) -> tuple[subprocess.Popen, str]:
    """An ingest that waits for the turn the test holds; (the process, its first stderr line)."""
    process = subprocess.Popen(
        [GPUCALC, "ingest", "quotes", "--file", str(quotes), "--date", DAY, "--data-dir", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    return process, process.stderr.readline()


def judged_before(offline_data: Path, tmp_path: Path, quotes: Path) -> None:
    """Validate v2 once in this process, on a copy: the run's cache then holds its verdict, so the
    racing processes spend their time on the race, not on importing great-expectations to judge it."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(offline_data, elsewhere)
    assert ingest_file("quotes", quotes, None, date.fromisoformat(DAY), Workspace.resolve(elsewhere)).ok


def test_the_warehouse_ends_at_the_corrected_version_raw_keeps_whoever_writes_last(offline_data, offline_copy,
                                                                                    tmp_path):
    quotes = tmp_path / "quotes.csv"
    judged_before(offline_data, tmp_path, write_quotes(quotes, "acme,a.1x,H100 SXM,1,3.5,2026-11-20"))
    holder = hold_lock(offline_copy)
    try:
        write_quotes(quotes, "acme,a.1x,H100 SXM,1,2.5,2026-11-20")  # v1
        first, first_said = start_ingest(offline_copy, quotes)
        write_quotes(quotes, "acme,a.1x,H100 SXM,1,3.5,2026-11-20")  # v2, the same file corrected
        second, second_said = start_ingest(offline_copy, quotes)
        assert first_said.startswith("waiting for run") and second_said.startswith("waiting for run")
        os.kill(first.pid, signal.SIGSTOP)  # the second gets the turn first
    finally:
        holder.close()
    try:
        second_out, _ = second.communicate(timeout=120)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    first.communicate(timeout=120)
    assert (first.returncode, second.returncode) == (0, 0)
    # the plain case too: a writer started while the turn is held says it waits, then loads
    assert "quotes_file: ok, 1 rows loaded" in second_out
    kept = (offline_copy / "raw" / "quotes_file" / DAY / "quotes.csv").read_text()
    loaded = query(offline_copy, "select usd_per_gpu_hour from price_quote where provider = 'acme'")
    assert (kept.splitlines()[-1], loaded) == ("acme,a.1x,H100 SXM,1,3.5,2026-11-20", [(3.5,)])
    # and the version it replaced is kept for the record
    (aside,) = (offline_copy / "raw" / "quotes_file" / DAY / "replaced").glob("*/quotes.csv")
    assert aside.read_text().splitlines()[-1] == "acme,a.1x,H100 SXM,1,2.5,2026-11-20"
