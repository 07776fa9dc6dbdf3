"""A password or token in the warehouse setting shows nowhere: not on the terminal, not in the run's
log or journal, not in run_log, not in an export.

Each probe runs a `gpucalc` command with the secret in GPUCALC_WAREHOUSE, then looks for the
secret in its output and in every file under the data directory.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.log_file import run_log_file
from warehouse.store.location import parse, redact
from warehouse.store.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SECRET = "s3cret-Xq9"
UNREACHABLE_LAKE = f"ducklake:postgres:host=127.0.0.1 port=1 dbname=lake password={SECRET}"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"ducklake:postgres:host=db password={SECRET} dbname=lake",
         "ducklake:postgres:host=db password=*** dbname=lake"),
        (f"at \"host=db password={SECRET}\"Unable", "at \"host=db password=***\"Unable"),
        (f"host=db password='{SECRET} x' port=5", "host=db password=*** port=5"),
        (f"of host=db password={SECRET}: connection refused", "of host=db password=***: connection refused"),
        (f"postgresql://me:{SECRET}@db:5432/lake", "postgresql://me:***@db:5432/lake"),
        (f"postgres://db/lake?user=me&password={SECRET}&sslmode=require",
         "postgres://db/lake?user=me&password=***&sslmode=require"),
        (f"md:gpucalc?motherduck_token={SECRET}", "md:gpucalc?motherduck_token=***"),
    ],
)
def test_redact_hides_every_spelling_of_a_secret(text, shown):
    assert redact(text) == shown


def test_a_location_is_shown_without_its_password():
    where = parse(f"ducklake:postgres:host=db password={SECRET}")
    assert SECRET in where.uri  # what DuckDB attaches
    assert where.shown == "ducklake:postgres:host=db password=***"


def gpucalc(data: Path, warehouse: str, *args: str) -> SimpleNamespace:
    """The command run in this process with the secret in GPUCALC_WAREHOUSE: its exit code and
    what it printed on each stream (an uncaught error fails the test, as a traceback would show)."""
    env = {"GPUCALC_DATA_DIR": str(data), "GPUCALC_WAREHOUSE": warehouse, "motherduck_token": None,
           "MOTHERDUCK_TOKEN": None}
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return SimpleNamespace(returncode=result.exit_code, stdout=result.stdout, stderr=result.stderr)


def files_holding_secret(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def test_an_unreachable_catalog_keeps_its_password_out_of_every_output_and_file(tmp_path):
    data = tmp_path / "data"
    commands = [
        ("ingest", "runs", "--file", str(FIXTURES / "user_runs" / "runs.csv")),
        ("sql", "select 1"),
        ("compare", "llama2-70b-offline", "--utilization", "0.5"),
        ("report",),
    ]
    for command in commands:
        done = gpucalc(data, UNREACHABLE_LAKE, *command)
        assert done.returncode != 0, command
        assert SECRET not in done.stdout + done.stderr, (command, done.stderr)
        assert "Traceback" not in done.stderr, (command, done.stderr)
    journal = list((data / "run_journal").glob("*.json"))
    assert len(journal) == 1  # the failed ingest waits for the next writer, without the password
    assert "password=***" in journal[0].read_text()
    assert files_holding_secret(data) == []


def test_a_motherduck_token_in_the_location_shows_nowhere(tmp_path):
    data = tmp_path / "data"
    for command in (("sql", "select 1"), ("ingest", "runs", "--file", str(FIXTURES / "user_runs" / "runs.csv"))):
        done = gpucalc(data, f"md:gpucalc?motherduck_token={SECRET}", *command)
        assert done.returncode != 0, command
        assert "md:gpucalc?motherduck_token=***" in done.stderr, done.stderr
        assert SECRET not in done.stdout + done.stderr
    assert files_holding_secret(data) == []


def test_a_real_catalogs_password_stays_out_of_run_log_and_the_export(postgres_server, tmp_path):
    data = tmp_path / "data"
    good = f"ducklake:postgres:{postgres_server.create_database('secrets')} password={SECRET}"
    missing = good.replace("dbname=", "dbname=nosuch_")
    refused = gpucalc(data, missing, "ingest", "runs", "--file", str(FIXTURES / "user_runs" / "runs.csv"))
    assert refused.returncode == 1 and SECRET not in refused.stderr, refused.stderr
    bad_file = tmp_path / "bad.csv"
    bad_file.write_text("garbage\n")
    # a payload nothing can be read from: the cheapest write, which also takes in the journal
    gpucalc(data, good, "ingest", "runs", "--file", str(bad_file))
    rows = gpucalc(data, good, "sql", "select status, message from run_log order by started_at", "--format", "csv")
    assert rows.returncode == 0, rows.stderr
    statuses = [line.split(",", 1)[0] for line in rows.stdout.splitlines()[1:]]
    assert statuses == ["failed", "failed"] and "password=***" in rows.stdout, rows.stdout
    exported = gpucalc(data, good, "export", "--format", "csv")
    assert exported.returncode == 0, exported.stderr
    assert SECRET not in rows.stdout + exported.stdout + exported.stderr
    assert files_holding_secret(data) == []


def test_the_run_log_file_hides_a_secret_in_a_message_and_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCALC_WAREHOUSE", UNREACHABLE_LAKE)
    with run_log_file(Workspace.resolve(tmp_path), "run-1") as path:
        story = logging.getLogger("gpucalc.run")
        story.info("run into %s", parse(UNREACHABLE_LAKE).uri)
        try:
            raise RuntimeError(f"IO Error: Unable to connect to Postgres at \"{SECRET}\"")
        except RuntimeError:
            story.exception("the write failed")
    text = path.read_text()
    assert "password=***" in text and "Unable to connect to Postgres at \"***\"" in text
    assert SECRET not in text


def test_sources_names_an_unreachable_catalog_without_its_password(tmp_path):
    done = gpucalc(tmp_path / "data", UNREACHABLE_LAKE, "sources")
    assert done.returncode == 0, done.stderr
    assert "password=***" in done.stdout + done.stderr
    assert SECRET not in done.stdout + done.stderr


def test_a_location_holding_a_secret_reaches_the_flow_through_the_environment(monkeypatch):
    from flows.cli import _as_flow_parameter

    monkeypatch.setenv("GPUCALC_WAREHOUSE", "")  # so the teardown restores it, whatever the function sets
    monkeypatch.delenv("GPUCALC_WAREHOUSE")
    assert _as_flow_parameter("/srv/warehouse.duckdb") == "/srv/warehouse.duckdb"
    assert "GPUCALC_WAREHOUSE" not in os.environ
    # Prefect stores a flow's parameters in its database: the password must not be one
    assert _as_flow_parameter(UNREACHABLE_LAKE) is None
    assert os.environ["GPUCALC_WAREHOUSE"] == UNREACHABLE_LAKE
