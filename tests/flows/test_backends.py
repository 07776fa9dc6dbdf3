"""The warehouse on every backend: a DuckDB file, DuckLake with a SQLite catalog, DuckLake with a
PostgreSQL catalog (a real server, tests/pg_server.py). The same commands, the same answers.

One night is built per backend (module scope; the DuckDB file's is a copy of the session's
bundled night; on DuckLake+SQLite through the real Prefect flow, which also publishes the
report from the lake) and every test runs on each. A lake write costs
several times a file write (every statement reads the lake's catalog), so the writes are few:
the night, an ingest and a replay while a reader holds the warehouse (with PostgreSQL, a second
ingest from another process at the same time).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from tests.conftest import OFFLINE_DAY
from tests.flows.cli_helpers import gpucalc
from warehouse.store.reader import connect_reader

KINDS = ["file", "ducklake-sqlite", "ducklake-postgres"]
GPUCALC = str(Path(sys.executable).parent / "gpucalc")
TABLES = ("gpu", "platform", "price_quote", "benchmark_result", "rejected_row", "topology_estimate", "estimate")


@dataclass
class Night:
    kind: str
    data: Path
    warehouse: str

    def args(self) -> list[str]:
        return ["--warehouse", self.warehouse, "--data-dir", str(self.data)]


@pytest.fixture(scope="module", params=KINDS)
def night(request, tmp_path_factory) -> Night:
    kind = request.param
    data = tmp_path_factory.mktemp(kind)
    if kind == "file":
        warehouse = str(data / "warehouse.duckdb")
    elif kind == "ducklake-sqlite":
        warehouse = f"ducklake:sqlite:{data / 'catalog.sqlite'}"
    else:
        warehouse = "ducklake:postgres:" + request.getfixturevalue("postgres_server").create_database("night")
    if kind == "file":  # the session's bundled night is this backend's night: a copy of it
        shutil.copytree(request.getfixturevalue("offline_data"), data, dirs_exist_ok=True)
    elif kind == "ducklake-sqlite":  # one real Prefect flow run on a lake: fetch-free night, report included
        from flows.nightly import nightly

        request.getfixturevalue("prefect_harness")
        result = nightly(run_date=OFFLINE_DAY, offline=True, data_dir=str(data), warehouse=warehouse)
        assert result["status"] == "success", result
    else:
        from warehouse.loading.load import RunContext
        from warehouse.loading.writer import new_run_id, write_run
        from warehouse.store.workspace import Workspace

        run = RunContext.new(new_run_id(OFFLINE_DAY), OFFLINE_DAY)
        summary = write_run(Workspace.resolve(data, warehouse), run, "offline", [], bundled_prices=True)
        assert summary["status"] == "success"
    return Night(kind, data, warehouse)


def counts(warehouse: str) -> dict[str, int]:
    con = connect_reader(warehouse)
    try:
        return counted(con)
    finally:
        con.close()


def counted(con) -> dict[str, int]:
    """The rows of each of TABLES, as a reader already open sees them."""
    return {t: con.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES}


def answers(warehouse: str, *queries: str) -> list[list[tuple]]:
    """Each query's rows, read through one new reader: on a lake every reader loads the catalog again."""
    con = connect_reader(warehouse)
    try:
        return [con.execute(sql).fetchall() for sql in queries]
    finally:
        con.close()


def test_the_night_is_the_same_on_every_backend(night, offline_data):
    assert counts(night.warehouse) == counts(str(offline_data / "warehouse.duckdb"))
    result = gpucalc("sql", "select count(*) as options from estimate where usd_total > 0", *night.args())
    assert result.exit_code == 0 and "options" in result.output, result.output
    if night.kind == "ducklake-sqlite":  # the flow's own publish step read the lake through the same door
        assert "# gpucalc report" in (night.data / "reports" / "2026-11-29" / "index.md").read_text()


def test_report_rebuilds_the_night_from_a_lake(night):
    """`gpucalc report` on a lake: the flow's report again, byte for byte (SQLite catalog), or
    the night's first report from its snapshots (PostgreSQL catalog). The DuckDB file's case is
    tests/reports/test_report_nights.py's."""
    if night.kind == "file":
        pytest.skip("the DuckDB file's reports are tested in tests/reports/")
    folder = night.data / "reports" / "2026-11-29"
    before = _files(folder)
    result = gpucalc("report", "--date", "2026-11-29", *night.args())
    assert result.exit_code == 0, result.output
    after = _files(folder)
    assert "index.md" in after and "index.html" in after and any(name.endswith(".png") for name in after)
    if before:  # the flow wrote it: the rebuild is the same pages and charts
        assert after == before


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def probes(night: Night, tmp_path: Path) -> list[str]:
    """The reliability probes (tests/flows/test_reliability.py), aimed at this backend's files."""
    targets = {"file": night.warehouse, "ducklake-sqlite": str(night.data / "catalog.sqlite")}
    target = targets.get(night.kind, str(night.data / "x.csv"))  # PostgreSQL: no catalog file to aim at
    common = [
        f"copy (select 'x' a) to '{target}' (format csv)",
        f"attach '{tmp_path / 'other.duckdb'}' as o (read_only false)",
        "select * from read_csv('/etc/passwd')",
        f"select * from read_text('{target}')",
        "install httpfs",
        "set enable_external_access = true",
        f"export database '{tmp_path / 'export'}'",
    ]
    if night.kind == "file":
        return common
    lake_files = night.data / "lake"
    return common + [
        f"copy (select 1 x) to '{lake_files / 'x.parquet'}'",  # the lake's own folder is readable, not writable
        f"attach '{night.warehouse}' as again",  # the catalog again, read-write
        f"select * from sqlite_scan('{tmp_path / 'any.sqlite'}', 'x')",  # the scanners ignore external access
        "select * from postgres_query('__ducklake_metadata_lake', 'select 1')",
        "select * from query('select 1')",
        "delete from gpu",
        "call ducklake_expire_snapshots('lake', older_than => now())",
    ]


def test_sql_reads_the_warehouse_and_nothing_else_on_every_backend(night, tmp_path):
    listing = files(night.data)
    statements = probes(night, tmp_path)
    con = connect_reader(night.warehouse)  # opened first, so it counts the warehouse as it was before
    try:
        before = counted(con)
        # through the command, as a person would (the first probe), then the rest through the same door
        result = gpucalc("sql", statements[0], *night.args())
        assert result.exit_code == 2 and result.output.startswith("SQL error:"), result.output
        for statement in statements[1:]:
            with pytest.raises(duckdb.Error):
                con.execute(statement).fetchall()
    finally:
        con.close()
    assert counts(night.warehouse) == before
    assert files(night.data) == listing
    assert not list(tmp_path.iterdir())


def files(data: Path) -> list[Path]:
    """What the data directory holds (SQLite's -wal/-shm companions come and go with readers)."""
    return sorted(p.relative_to(data) for p in data.rglob("*") if not p.name.startswith("catalog.sqlite"))


READER = """
import sys
from warehouse.store.reader import connect_reader
con = connect_reader(sys.argv[1])
count = lambda: con.execute("select count(*) from run_log").fetchone()[0]
print(count(), flush=True)
sys.stdin.readline()  # hold the warehouse open until the writers are done
print(count(), flush=True)
"""


def write_file(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_writers_land_while_a_reader_holds_the_warehouse(night, tmp_path):
    """A reader holds the warehouse open across writes; the writes land, the reader keeps its night.

    With a PostgreSQL catalog two ingests run at once in two processes (two machines, as far as
    the lock goes: they take turns through PostgreSQL), then a replay; with a SQLite catalog an
    ingest and a replay of a kept day run one after the other. A DuckDB file's reader and writer
    are tests/flows/test_reliability.py's, with the flock's turns.
    """
    if night.kind == "file":
        pytest.skip("a reader holding the DuckDB file is tested in tests/flows/test_reliability.py")
    from sources.kit import raw_store
    from sources.kit.spec import Payload

    quotes = write_file(tmp_path / "q.csv", "provider,instance_type,gpu_name,gpus_per_instance,usd_per_gpu_hour,"
                        "observed_at\nacme,a.1x,H100 SXM,1,2.5,2026-11-20\n")
    run = json.dumps({"workload_id": "dflash-qwen36-27b", "gpu_name": "RTX PRO 6000 Blackwell Workstation Edition",
                      "gpu_count": 4, "role_split": "3+1", "value": 14800, "system": "lab"}) + "\n"
    reader = subprocess.Popen([sys.executable, "-c", READER, night.warehouse], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    before = int(reader.stdout.readline())
    other = None
    # The same runs row, from a file of the same name, on every backend: the earlier backends'
    # replays leave its validation in the run's cache, so the other machine's process below spends
    # its time on the write, not on importing great-expectations (about 5 s) to judge it again.
    runs = write_file(tmp_path / "runs.jsonl", run)
    if night.kind == "ducklake-postgres":  # the other machine's ingest, at the same time as ours
        other = subprocess.Popen([GPUCALC, "ingest", "runs", "--file", str(runs), "--date", "2026-11-28",
                                  *night.args()], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    else:  # the runs file as an earlier ingest kept it for the 28th
        raw_store.save(Payload("user_runs", "runs.jsonl", run.encode(), str(runs), None), night.data / "raw", _day(28))
    mine = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", "2026-11-29", *night.args())
    assert mine.exit_code == 0 and "quotes_file: ok, 1 rows loaded" in mine.output, mine.output
    if other:
        out, err = other.communicate(timeout=300)
        assert other.returncode == 0 and "user_runs: ok, 1 rows loaded" in out, err
    replay = gpucalc("replay", "--date", "2026-11-28", *night.args())
    assert replay.exit_code == 0 and "user_runs: ok, 1 rows loaded" in replay.output, replay.output
    held, _ = reader.communicate("\n", timeout=60)
    assert int(held) == before  # the reader kept its night all along
    writes = 3 if other else 2
    runs, acme, user_runs = answers(night.warehouse, "select count(*) from run_log",
                                    "select count(*) from price_quote where provider = 'acme'",
                                    "select count(*) from benchmark_result where source = 'user_runs'")
    assert runs[0][0] == before + writes  # every write landed
    assert acme == [(1,)]
    assert user_runs == [(1,)]


def _day(day: int):
    from datetime import date

    return date(2026, 11, day)


def test_as_of_reads_the_night_a_day_left_or_says_why_not(night):
    result = gpucalc("sql", "select count(*) as runs from run_log", "--as-of", _today(), *night.args())
    if night.kind == "file":
        assert result.exit_code == 2 and "--as-of needs a DuckLake warehouse" in result.output
        return
    assert result.exit_code == 0, result.output
    result = gpucalc("sql", "select 1", "--as-of", "2020-01-01", *night.args())
    assert result.exit_code == 2 and "the lake has no snapshot on or before 2020-01-01" in result.output


def _today() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).date().isoformat()
