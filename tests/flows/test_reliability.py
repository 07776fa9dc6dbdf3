"""Reliability: nothing lost, nothing corrupted, nothing written through the read-only door.

Each test is one of the probes that once broke the warehouse (issue 7), run the way a user
would: through the command line, in this process (typer's CliRunner) or as a real process
when the probe is about processes (kill -9, two writers, Ctrl-C).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from tests.conftest import OFFLINE_DAY
from tests.flows.cli_helpers import gpucalc, query
from warehouse.store.write_session import LOCK_NAME

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GPUCALC = str(Path(sys.executable).parent / "gpucalc")


def write_quotes(path: Path, *rows: str) -> Path:
    header = "provider,instance_type,gpu_name,gpus_per_instance,usd_per_gpu_hour,observed_at"
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


# --- the read-only door -------------------------------------------------------------------

@pytest.mark.parametrize(
    "statement",
    [
        "copy (select 'x' a) to '{warehouse}' (format csv)",  # probe 1: turned 11 MB into 8 bytes
        "attach '{other}' as o (read_only false)",
        "select * from read_csv('/etc/passwd')",
        "select * from read_text('{warehouse}')",
        "install httpfs",
        "set enable_external_access = true",
        "export database '{other_dir}'",
    ],
)
def test_sql_reads_the_warehouse_and_nothing_else(offline_data, tmp_path, statement):
    warehouse = offline_data / "warehouse.duckdb"
    size = warehouse.stat().st_size
    sql = statement.format(warehouse=warehouse, other=tmp_path / "other.duckdb", other_dir=tmp_path / "export")
    result = gpucalc("sql", sql, "--data-dir", str(offline_data))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("SQL error:") and "Traceback" not in result.output
    assert warehouse.stat().st_size == size
    assert not list(tmp_path.iterdir())


def test_sql_takes_one_statement_and_a_timeout(offline_data):
    result = gpucalc("sql", "select 1; select 2", "--data-dir", str(offline_data))
    assert result.exit_code == 2 and "one statement per call, please (2 given)" in result.output
    result = gpucalc("sql", "select count(*) from range(100000000000)", "--timeout", "0.2",
                     "--data-dir", str(offline_data))
    assert result.exit_code == 130 and "query stopped after 0.2 s (--timeout)" in result.output
    result = gpucalc("sql", "select count(*) as gpus from gpu", "--data-dir", str(offline_data))
    assert result.exit_code == 0 and "gpus" in result.output
    for never in ("0", "-1", "nan", "inf"):  # at once, or not at all: neither is a timeout
        result = gpucalc("sql", "select 1", "--timeout", never, "--data-dir", str(offline_data))
        assert result.exit_code == 2, result.output
        assert f"--timeout must be a finite number of seconds above zero, got {never}" in result.output


def test_sql_prints_every_row_as_csv_or_jsonl_for_a_file_or_a_pipe(offline_data):
    query = "select * from (values (1, 'x,y', date '2026-11-29'), (2, null, null)) t(a, b, day) order by a"
    result = gpucalc("sql", query, "--format", "csv", "--data-dir", str(offline_data))
    assert result.exit_code == 0 and result.output == 'a,b,day\n1,"x,y",2026-11-29\n2,,\n'
    result = gpucalc("sql", query, "--format", "jsonl", "--data-dir", str(offline_data))
    assert result.exit_code == 0 and [json.loads(line) for line in result.output.splitlines()] == [
        {"a": 1, "b": "x,y", "day": "2026-11-29"}, {"a": 2, "b": None, "day": None}]
    rows = gpucalc("sql", "select * from range(250)", "--format", "csv", "--data-dir", str(offline_data))
    assert len(rows.output.splitlines()) == 251  # every row, not --max-rows' 200
    assert gpucalc("sql", "select 1", "--format", "xml", "--data-dir", str(offline_data)).exit_code == 2


def test_ctrl_c_stops_a_query_with_one_line(offline_data):
    process = subprocess.Popen(
        [GPUCALC, "sql", "select count(*) from range(100000000000)", "--data-dir", str(offline_data)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    _wait_until_open(process, offline_data / "warehouse.duckdb")  # past its imports
    time.sleep(0.3)  # and into the query, a few times what sql takes to reach it once the file is open
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err.strip() == "interrupted"


def test_ctrl_c_while_its_prefect_server_boots_exits_130_at_once_and_keeps_the_warehouse(offline_copy):
    """Ctrl-C reaches the terminal's whole process group a few seconds in, the run's temporary
    Prefect server still booting: the run stops at once, its server (in a session of its own,
    so the signal never killed it under the client) goes with it, and the warehouse is as the
    night before left it."""
    _interrupted_at("while its Prefect server boots", offline_copy, {})


def _interrupted_at(moment: str, data: Path, env: dict[str, str]) -> None:
    before = query(data, "select run_id, run_date, status from run_log order by run_id")
    process = subprocess.Popen(
        [GPUCALC, "run", "--offline", "--date", OFFLINE_DAY.isoformat(), "--data-dir", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=os.environ | env,
    )
    servers = _wait_until(moment, process, data / LOCK_NAME)
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C sends it
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert time.monotonic() - sent < 5  # 2 s, said generously for a loaded machine
    assert (out, err) == ("", "interrupted: the warehouse and reports are as the last finished write left them\n")
    for pid in servers:  # the server it started is gone, not left serving
        assert not Path(f"/proc/{pid}").exists() or _state(pid) == "Z", f"server {pid} outlived the run"
    # the warehouse opens, as the night before left it
    assert query(data, "select run_id, run_date, status from run_log order by run_id") == before


def _wait_until(moment: str, process: subprocess.Popen, lock: Path) -> list[int]:
    """Wait until the run is at `moment`: its server started, or its write begun; return the
    processes it has started by then."""
    deadline = time.monotonic() + 120
    while True:
        servers = _children(process.pid)
        holder = _holder(lock)
        writing = holder.get("pid") == process.pid and not holder.get("finished")
        if servers if moment.startswith("while") else writing:
            return servers
        assert time.monotonic() < deadline and process.poll() is None, f"the run never got {moment}"
        time.sleep(0.01)


def _children(pid: int) -> list[int]:
    """The processes `pid` started (its temporary Prefect server), from /proc."""
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in children.read_text().split()]
        except OSError:  # the thread or the process ended
            continue
    return found


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_an_interrupted_write_keeps_nothing_and_journals_its_run_log_row(offline_copy):
    """Ctrl-C stops a write at its next stage (flows/interrupt.py): the working copy goes, the
    live warehouse stays byte for byte, and the run's failed row waits for the next writer."""
    from warehouse.loading.load import RunContext
    from warehouse.loading.writer import INTERRUPTED, new_run_id, write_run
    from warehouse.store.workspace import Workspace

    heard = []

    def stage(message: str) -> None:
        heard.append(message)
        if message == "rebuilding estimates":
            raise KeyboardInterrupt

    warehouse = offline_copy / "warehouse.duckdb"
    before = warehouse.read_bytes()
    run = RunContext.new(new_run_id(OFFLINE_DAY), OFFLINE_DAY)
    with pytest.raises(KeyboardInterrupt):
        write_run(Workspace.resolve(offline_copy), run, "offline", [], bundled_prices=True, on_step=stage)
    assert heard == ["copying the warehouse to write", "loading the catalog and the bundled benchmarks",
                     "loading the bundled price snapshot", "rebuilding estimates"]
    assert warehouse.read_bytes() == before
    assert not (offline_copy / "warehouse.duckdb.next").exists()
    entry = json.loads((offline_copy / "run_journal" / f"{run.run_id}.json").read_text())
    assert (entry["status"], entry["message"]) == ("failed", INTERRUPTED)


def _wait_until_open(process: subprocess.Popen, path: Path, timeout_s: float = 30) -> None:
    """Until `process` holds `path` open (Linux's /proc; elsewhere a fixed wait)."""
    fds = Path(f"/proc/{process.pid}/fd")
    if not fds.is_dir():
        time.sleep(4)
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        for fd in list(fds.iterdir()):
            try:
                if Path(os.readlink(fd)) == path.resolve():
                    return
            except OSError:  # closed since the listing
                continue
        time.sleep(0.05)


# --- load windows: a payload replaces its own rows ----------------------------------------

def test_a_corrected_quotes_file_removes_the_row_it_dropped(offline_copy, tmp_path):
    first = write_quotes(tmp_path / "quotes.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20",
                         "bolt,b.1x,H100 SXM,1,2.6,2026-11-20")
    assert gpucalc("ingest", "quotes", "--file", str(first), "--date", "2026-11-28",
                   "--data-dir", str(offline_copy)).exit_code == 0
    corrected = write_quotes(tmp_path / "quotes.csv", "bolt,b.1x,H100 SXM,1,2.6,2026-11-20")
    assert gpucalc("ingest", "quotes", "--file", str(corrected), "--date", "2026-11-28",
                   "--data-dir", str(offline_copy)).exit_code == 0
    assert query(offline_copy, "select provider from price_quote where source = 'quotes_file'") == [("bolt",)]
    # another day's file with the same provider and observed_at leaves it alone (probe 2)
    other = write_quotes(tmp_path / "more.csv", "bolt,b.8x,H100 SXM,8,2.4,2026-11-20")
    assert gpucalc("ingest", "quotes", "--file", str(other), "--date", "2026-11-29",
                   "--data-dir", str(offline_copy)).exit_code == 0
    rows = "select instance_type from price_quote where source = 'quotes_file' order by 1"
    assert query(offline_copy, rows) == [("b.1x",), ("b.8x",)]
    # and replaying the 28th, then the 29th, then the 28th again converges
    for day in ("2026-11-28", "2026-11-29", "2026-11-28"):
        assert gpucalc("replay", "--date", day, "--data-dir", str(offline_copy)).exit_code == 0
    assert query(offline_copy, rows) == [("b.1x",), ("b.8x",)]


def test_one_bad_record_is_one_rejected_row_and_never_blocks_the_day(offline_copy, tmp_path):
    runs = tmp_path / "runs.jsonl"
    good = {"workload_id": "dflash-qwen36-27b", "gpu_name": "RTX PRO 6000 Blackwell Workstation Edition",
            "gpu_count": 4, "role_split": "3+1", "value": 14800}
    runs.write_text("\n".join(json.dumps(r) for r in [
        good,
        good | {"system": "list", "value": [1, 2]},  # probe 13: a list value refused the whole file
        good | {"system": "intdate", "measured_at": 20260101},  # probe 4: blocked every later load
        good | {"system": "inf", "value": float("inf")},  # probe 6: 55 topologies at infinite speed
        good | {"system": "huge", "value": 1e300},
        good | {"system": "typo", "workload_id": "dflash-qwen36-72b"},  # probe 15: unknown workload
    ]) + "\n")
    result = gpucalc("ingest", "runs", "--file", str(runs), "--date", "2026-11-28", "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    assert "user_runs: ok, 1 rows loaded, 5 rejected" in result.output
    rules = query(offline_copy, "select rule from rejected_row where source = 'user_runs' order by source_row")
    assert [r[0] for r in rules] == ["wrong_type", "unparseable_date", "non_finite_value", "exceeds_hardware_peak",
                                     "unknown_workload"]
    assert gpucalc("replay", "--date", "2026-11-28", "--data-dir", str(offline_copy)).exit_code == 0
    assert query(offline_copy, "select count(*) from benchmark_result where source = 'user_runs'") == [(1,)]


def test_a_backfill_does_not_move_tonight_and_the_future_is_refused(offline_copy, tmp_path):
    quotes = write_quotes(tmp_path / "march.csv", "acme,a.1x,H100 SXM,1,2.5,2026-03-01")
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-03-01", "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    # probe 9: the estimates still answer as of the latest night, not as of March
    assert query(offline_copy, "select run_date from run_context") == [(OFFLINE_DAY,)]
    assert query(offline_copy, "select max(run_date) from estimate_daily") == [(OFFLINE_DAY,)]
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2999-01-01", "--data-dir", str(offline_copy))
    assert result.exit_code == 2 and "2999-01-01 is in the future" in result.output


def test_paths_never_come_from_flags_unchecked(offline_copy, tmp_path):
    vms = FIXTURES / "skypilot" / "aws_vms.csv"
    for provider in ("../../../../outside/x", str(tmp_path / "abs")):
        result = gpucalc("ingest", "skypilot", "--file", str(vms), "--provider", provider,
                         "--data-dir", str(offline_copy))
        assert result.exit_code == 2 and "is not a provider name" in result.output
    assert not (offline_copy / "raw").exists() and [p.name for p in tmp_path.iterdir()] == ["data"]


def test_a_file_over_its_size_limit_is_refused_at_once(offline_copy, tmp_path):
    from sources.kit.registry import spec_for

    big = tmp_path / "quotes.csv"
    with open(big, "wb") as handle:
        handle.truncate(spec_for("quotes_file").max_bytes + 1)  # sparse: no time, no memory
    result = gpucalc("ingest", "quotes", "--file", str(big), "--data-dir", str(offline_copy))
    assert result.exit_code == 1 and "-byte limit for quotes_file files" in result.output
    assert not (offline_copy / "raw").exists()


# --- processes: readers, two writers, kill -9 ---------------------------------------------

READER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
count = lambda: con.execute("select count(*) from run_log").fetchone()[0]
print(count(), flush=True)
sys.stdin.readline()  # hold the file open until the writer is done
print(count(), flush=True)
"""


def test_a_reader_holding_the_warehouse_never_blocks_a_write(offline_copy, tmp_path):
    # issue 12's probe too: an analyst's open connection made the nightly fail to lock the file
    reader = subprocess.Popen([sys.executable, "-c", READER, str(offline_copy / "warehouse.duckdb")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    before = int(reader.stdout.readline())
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29",
                     "--data-dir", str(offline_copy))
    out, _ = reader.communicate("\n", timeout=30)
    assert result.exit_code == 0, result.output
    assert int(out) == before  # the reader kept its snapshot all along
    assert query(offline_copy, "select count(*) from run_log")[0][0] == before + 1  # a new reader sees the write


def hold_lock(data: Path, run_id: str = "2026-11-29-000001000000"):
    handle = open(data / LOCK_NAME, "a+b")
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
    handle.truncate(0)
    handle.write(json.dumps({"run_id": run_id, "run_date": "2026-11-29", "mode": "online", "pid": 4242,
                             "started_at": "2026-11-29T02:15:00"}).encode())
    handle.flush()
    return handle


def test_a_second_writer_waits_then_refuses_with_one_sentence_and_a_run_log_row(offline_copy, tmp_path):
    holder = hold_lock(offline_copy)
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    try:
        result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29",
                         "--data-dir", str(offline_copy), env={"GPUCALC_WRITE_WAIT_S": "0.5"})
    finally:
        holder.close()
    assert result.exit_code == 4
    assert "refused: run 2026-11-29-000001000000 (online, pid 4242" in result.output
    assert "waiting for run 2026-11-29-000001000000" in result.output and "Traceback" not in result.output
    # the refused ingest shows up in run_log at the next write, with the interrupted holder
    assert gpucalc("replay", "--date", "2026-11-29", "--data-dir", str(offline_copy)).exit_code == 0
    statuses = dict(query(offline_copy, "select status, message from run_log where status in ('refused', 'failed')"))
    assert "is writing the warehouse; waited 0.5 s" in statuses["refused"]
    assert statuses["failed"].startswith("interrupted: process 4242 stopped before finishing")


def ingest_while_the_turn_is_held(offline_copy: Path, quotes: Path, *where: str) -> tuple[str, str]:
    """An ingest started while another writer holds the turn, which it gives back once the
    ingest says it waits for it (however long its start took); (its first stderr line, stdout)."""
    holder = hold_lock(offline_copy)
    try:
        process = subprocess.Popen(
            [GPUCALC, "ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29", *where],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        first_line = process.stderr.readline()
    finally:
        holder.close()
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, first_line + err
    return first_line, out


def test_writers_of_one_warehouse_from_two_data_directories_take_turns_too(offline_copy, tmp_path):
    """Two shells in two folders with one GPUCALC_WAREHOUSE: both copied the live file, and the
    second rename threw the first write away (or one deleted the other's copy mid-write)."""
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    # the holder has the default layout: its lock is beside the warehouse, in its data directory
    first_line, out = ingest_while_the_turn_is_held(offline_copy, quotes, "--data-dir", str(tmp_path / "elsewhere"),
                                                    "--warehouse", str(offline_copy / "warehouse.duckdb"))
    assert first_line.startswith("waiting for run 2026-11-29-000001000000") and "1 rows loaded" in out
    assert query(offline_copy, "select count(*) from price_quote where provider = 'acme'") == [(1,)]


def test_kill_9_during_a_write_loses_nothing_and_the_next_run_says_so(offline_copy, tmp_path):
    before = query(offline_copy, "select count(*), sum(usd_per_gpu_hour) from price_quote")
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    process = subprocess.Popen(
        [GPUCALC, "ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29", "--data-dir", str(offline_copy)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    lock = offline_copy / LOCK_NAME
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # kill it while it holds the lock, mid-write
        holder = _holder(lock)
        if holder.get("pid") == process.pid and not holder.get("finished"):
            break
        time.sleep(0.01)
    else:
        pytest.fail("the ingest never took the write lock")
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    # the live warehouse is intact and readable
    assert query(offline_copy, "select count(*), sum(usd_per_gpu_hour) from price_quote") == before
    assert gpucalc("sql", "select count(*) from estimate", "--data-dir", str(offline_copy)).exit_code == 0
    # the next writer discards the killed run's copy and records that run as failed
    assert gpucalc("replay", "--date", "2026-11-29", "--data-dir", str(offline_copy)).exit_code == 0
    ((message,),) = query(offline_copy, "select message from run_log where status = 'failed'")
    assert message.startswith(f"interrupted: process {process.pid} stopped before finishing")
    assert not (offline_copy / "warehouse.duckdb.next").exists()
    assert query(offline_copy, "select count(*) from price_quote where source = 'quotes_file'") == [(1,)]


def _holder(lock: Path) -> dict:
    try:
        return json.loads(lock.read_text() or "{}")
    except (OSError, ValueError):
        return {}


def test_the_local_prefect_server_dies_with_the_process_that_started_it(tmp_path):
    """kill -9 of `gpucalc run` must not orphan its API server: the child gets SIGTERM."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import subprocess, sys, time\n"
        "from flows.prefect_api import _die_with_parent\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'],"
        " preexec_fn=_die_with_parent)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    child_pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child_pid):
        time.sleep(0.05)
    assert not _alive(child_pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def test_prefect_startup_timeout_is_generous_and_settable(monkeypatch):
    from flows.prefect_api import startup_timeout

    monkeypatch.delenv("GPUCALC_PREFECT_STARTUP_TIMEOUT", raising=False)
    assert startup_timeout() == 180
    monkeypatch.setenv("GPUCALC_PREFECT_STARTUP_TIMEOUT", "600")
    assert startup_timeout() == 600


def test_a_prefect_server_the_settings_name_but_nobody_runs_is_one_sentence(tmp_path, monkeypatch):
    """The scheduling section's `export PREFECT_API_URL=...` left in a shell whose server is down."""
    from flows import prefect_api

    monkeypatch.setattr(prefect_api, "REACHABLE_S", 0.5)
    url = f"http://127.0.0.1:{prefect_api.free_port()}/api"  # nothing listens there
    result = gpucalc("run", "--offline", "--data-dir", str(tmp_path / "data"), env={"PREFECT_API_URL": url})
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert f"error: PREFECT_API_URL is {url}, and no Prefect server answered there within 0.5 s: start it " \
           "(`prefect server start`), or unset PREFECT_API_URL" in result.output
    assert not (tmp_path / "data").exists()  # nothing ran


def test_run_refuses_a_future_date(tmp_path):
    result = gpucalc("run", "--offline", "--date", (date.today().replace(year=date.today().year + 1)).isoformat(),
                     "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "is in the future" in result.output


def test_run_refuses_live_sources_offline_rather_than_ignore_them(tmp_path):
    result = gpucalc("run", "--offline", "--sources", "vast", "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "--offline fetches none" in " ".join(result.output.replace("│", " ").split())
    assert not tmp_path.joinpath("warehouse.duckdb").exists()
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_ctrl_c_mid_write_exits_130_at_once_and_keeps_the_warehouse(offline_copy, prefect_harness):
    """Ctrl-C mid-write, on the Prefect server the settings name (the run's own server is the
    test above; last in this file, so the run's shared server has booted by then): the run
    stops at once and the warehouse is as the night before left it."""
    _interrupted_at("mid-write", offline_copy, {"PREFECT_API_URL": prefect_harness})
