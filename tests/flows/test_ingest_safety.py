"""An ingest or a replay never loses a kept payload, and a bad input is one sentence.

A catalog saved from another cloud is refused before anything is kept; a payload replaced by
other bytes is set aside where replay can get it back; two files of one name from two folders
are both kept; a journal entry of the wrong shape is set aside; a data directory gpucalc may
not write is said in one sentence before anything changes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.flows.cli_helpers import gpucalc, query
from tests.flows.test_reliability import write_quotes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SKYPILOT = FIXTURES / "skypilot"
DAY = "2026-11-28"
GPUCALC = str(Path(sys.executable).parent / "gpucalc")
P5_ON_DEMAND = ("select distinct usd_per_instance_hour from price_quote where source = 'skypilot' and provider = 'aws' "
                "and instance_type = 'p5.48xlarge' and pricing = 'on_demand' and region = 'us-east-1'")


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def ingest(data: Path, source: str, file: Path, *extra: str):
    return gpucalc("ingest", source, "--file", str(file), "--date", DAY, "--data-dir", str(data), *extra)


def with_aws_kept(data: Path) -> Path:
    """The bundled warehouse with SkyPilot's AWS catalog ingested for DAY."""
    result = ingest(data, "skypilot", SKYPILOT / "aws_vms.csv", "--provider", "aws")
    assert result.exit_code == 0, result.output
    return data


@pytest.fixture(scope="module")
def aws_kept_built(offline_data, tmp_path_factory) -> Path:
    """The bundled warehouse with AWS's catalog kept and loaded, ingested once for the module: no
    test touches it; each takes a copy (`aws_kept`, `aws_kept_unchanged`), cheaper than an ingest."""
    data = tmp_path_factory.mktemp("aws_kept_built") / "data"
    shutil.copytree(offline_data, data)
    return with_aws_kept(data)


@pytest.fixture
def aws_kept(aws_kept_built, tmp_path) -> Path:
    """A private copy of `aws_kept_built`, free to change."""
    data = tmp_path / "data"
    shutil.copytree(aws_kept_built, data)
    return data


@pytest.fixture(scope="module")
def aws_kept_unchanged(aws_kept_built, tmp_path_factory) -> Path:
    """One copy for the tests that only prove a command leaves it as it was: shared, since none may change it."""
    data = tmp_path_factory.mktemp("aws_kept") / "data"
    shutil.copytree(aws_kept_built, data)
    return data


# --- a catalog of another cloud ------------------------------------------------------------

@pytest.mark.parametrize(
    ("fixture", "saved_as", "said"),
    [
        ("lambda_vms.csv", "lambda_vms.csv", "lambda_vms.csv is SkyPilot's catalog of lambda, not of aws"),
        ("lambda_vms.csv", "vms.csv", "vms.csv looks like lambda's catalog (instance types like cpu_4x_generalx), "
                                      "not aws's: ingest it with --provider lambda"),
        ("runpod_vms.csv", "vms.csv", "vms.csv does not look like aws's catalog (instance types like 1x_A100"),
    ],
)
def test_a_catalog_of_another_cloud_is_refused_and_nothing_is_kept(aws_kept_unchanged, tmp_path, fixture, saved_as,
                                                                    said):
    quotes = "select * exclude (run_id, extracted_at) from price_quote order by all"
    before_rows = query(aws_kept_unchanged, quotes)
    before_files = files_under(aws_kept_unchanged / "raw")
    before_runs = query(aws_kept_unchanged, "select count(*) from run_log")
    wrong = tmp_path / saved_as
    shutil.copy(SKYPILOT / fixture, wrong)
    result = ingest(aws_kept_unchanged, "skypilot", wrong, "--provider", "aws")
    assert result.exit_code == 2, result.output
    assert said in result.output and "nothing was kept or loaded" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert files_under(aws_kept_unchanged / "raw") == before_files
    assert query(aws_kept_unchanged, quotes) == before_rows
    assert query(aws_kept_unchanged, "select count(*) from run_log") == before_runs


def test_every_catalog_fixture_is_its_own_clouds_and_no_other():
    from sources.kit.spec import Payload
    from sources.skypilot import wrong_cloud

    clouds = [path.name.removesuffix("_vms.csv") for path in sorted(SKYPILOT.glob("*_vms.csv"))]
    for cloud in clouds:
        body = (SKYPILOT / f"{cloud}_vms.csv").read_bytes()
        neutral = Path("/somewhere/vms.csv")
        assert wrong_cloud(neutral, Payload("skypilot", "x", body, str(neutral), cloud)) is None, cloud
        # a cloud whose instance types have a shape of their own is never taken for another
        for claimed in ("aws", "azure", "lambda"):
            if claimed != cloud:
                assert wrong_cloud(neutral, Payload("skypilot", "x", body, str(neutral), claimed)), (cloud, claimed)
    # SkyPilot's own checkout names the cloud by folder
    checkout = Path("/catalogs/v8/lambda/vms.csv")
    aws = (SKYPILOT / "aws_vms.csv").read_bytes()
    assert "catalog of lambda, not of aws" in wrong_cloud(checkout, Payload("skypilot", "x", aws, "", "aws"))


# --- a kept payload replaced by other bytes -------------------------------------------------

def test_a_replaced_payload_is_set_aside_and_replay_brings_it_back(aws_kept, tmp_path):
    folder = aws_kept / "raw" / "skypilot" / DAY
    original = (SKYPILOT / "aws_vms.csv").read_bytes()
    assert query(aws_kept, P5_ON_DEMAND) == [(55.04,)]
    corrected = tmp_path / "aws_vms.csv"
    corrected.write_bytes(original.replace(b"55.04", b"60.00"))
    result = ingest(aws_kept, "skypilot", corrected, "--provider", "aws")
    assert result.exit_code == 0, result.output
    assert query(aws_kept, P5_ON_DEMAND) == [(60.0,)]
    (aside,) = (folder / "replaced").glob("*/aws_vms.csv")
    assert aside.read_bytes() == original and aside.with_name("aws_vms.csv.meta.json").exists()
    assert f"the one it replaces is kept at {aside}" in result.output
    # what is set aside is not replayed: the day holds one AWS catalog
    assert "replayed 1 kept payloads" in gpucalc("replay", "--date", DAY, "--data-dir", str(aws_kept)).output
    assert query(aws_kept, P5_ON_DEMAND) == [(60.0,)]
    # the way back the output gives: move it back, replay
    for path in aside.parent.iterdir():
        path.replace(folder / path.name)
    result = gpucalc("replay", "--date", DAY, "--data-dir", str(aws_kept))
    assert result.exit_code == 0, result.output
    assert query(aws_kept, P5_ON_DEMAND) == [(55.04,)]


# --- two files of one name ------------------------------------------------------------------

def test_two_files_of_one_name_from_two_folders_are_both_kept_and_load_together(offline_copy, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_quotes(tmp_path / "a" / "quotes.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    second = write_quotes(tmp_path / "b" / "quotes.csv", "bolt,b.1x,H100 SXM,1,2.6,2026-11-20")
    providers = "select provider, usd_per_gpu_hour from price_quote where source = 'quotes_file' order by 1"
    for file in (first, second):
        result = ingest(offline_copy, "quotes", file)
        assert result.exit_code == 0 and "replaces" not in result.output, result.output
    assert query(offline_copy, providers) == [("acme", 2.5), ("bolt", 2.6)]
    folder = offline_copy / "raw" / "quotes_file" / DAY
    kept = sorted(p.name for p in folder.iterdir() if p.suffix == ".csv")
    assert len(kept) == 2 and kept[0] != "quotes.csv" and kept[1] == "quotes.csv"
    # a corrected version of the same path replaces that file's copy only
    write_quotes(second, "bolt,b.1x,H100 SXM,1,2.9,2026-11-20")
    result = ingest(offline_copy, "quotes", second)
    assert result.exit_code == 0 and "replaces a different payload kept as" in result.output, result.output
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".csv") == kept
    assert query(offline_copy, providers) == [("acme", 2.5), ("bolt", 2.9)]
    assert gpucalc("replay", "--date", DAY, "--data-dir", str(offline_copy)).exit_code == 0
    assert query(offline_copy, providers) == [("acme", 2.5), ("bolt", 2.9)]


# --- a journal entry of the wrong shape -----------------------------------------------------

def test_a_journal_entry_of_the_wrong_shape_is_set_aside_and_blocks_nothing(offline_copy, tmp_path, caplog):
    journal = offline_copy / "run_journal"
    journal.mkdir()
    (journal / "list.json").write_text("[]")
    (journal / "other.json").write_text('{"x": 1}')
    (journal / "baddate.json").write_text(json.dumps({
        "run_id": "r-0", "run_date": "someday", "mode": "ingest", "started_at": "2026-11-28T01:00:00",
        "status": "refused"}))
    (journal / "good.json").write_text(json.dumps({
        "run_id": "r-1", "run_date": "2026-11-28", "mode": "ingest", "started_at": "2026-11-28T01:00:00",
        "finished_at": "2026-11-28T01:00:01", "status": "refused", "message": "was busy"}))
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    result = ingest(offline_copy, "quotes", quotes)
    assert result.exit_code == 0, result.output
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    for name in ("list.json", "other.json", "baddate.json"):
        said = f"skipped {journal / name}: it is not a run_log row (set aside as {journal / 'unreadable' / name}"
        assert any(said in message for message in warned), warned
    assert (journal / "unreadable" / "list.json").read_text() == "[]"
    assert sorted(p.name for p in journal.iterdir()) == ["unreadable"]
    assert query(offline_copy, "select status, message from run_log where run_id = 'r-1'") == [("refused", "was busy")]
    assert query(offline_copy, "select count(*) from price_quote where provider = 'acme'") == [(1,)]
    assert gpucalc("replay", "--date", DAY, "--data-dir", str(offline_copy)).exit_code == 0


# --- a data directory gpucalc may not write -------------------------------------------------

def run_read_only(data: Path, *args: str) -> subprocess.CompletedProcess:
    """`gpucalc ARGS` with `data` read-only: chmod for a user, a read-only bind mount in a
    private mount namespace for root (whom chmod does not stop)."""
    import os

    command = [GPUCALC, *args]
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(data)], check=True)
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=120)
        finally:
            subprocess.run(["chmod", "-R", "u+w", str(data)], check=True)
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "--mount", "mount", "--bind", "-o", "ro", str(data), str(data)],
            capture_output=True).returncode != 0:
        pytest.skip("running as root, where chmod does not stop writes, and no read-only bind mount is "
                    "permitted here (unshare --mount)")
    script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    return subprocess.run(["unshare", "--mount", "sh", "-c", script, str(data), *command],
                          capture_output=True, text=True, timeout=120)


def test_a_read_only_data_directory_is_one_sentence_and_changes_nothing(aws_kept, tmp_path):
    # aws_kept has a payload kept for DAY, so the replay has a day to rebuild and is refused for the folder alone
    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")
    before = files_under(aws_kept)
    for args in (("ingest", "quotes", "--file", str(quotes), "--date", DAY),
                 ("replay", "--date", DAY)):
        done = run_read_only(aws_kept, *args, "--data-dir", str(aws_kept))
        assert done.returncode == 1, done.stderr
        assert done.stderr.splitlines() == [
            f"error: gpucalc cannot write to {aws_kept} (read-only for this user); the warehouse is as it was. "
            f"Make it writable (chmod -R u+w {aws_kept}) or pass --data-dir with a folder you can write"
        ], done.stderr
        assert files_under(aws_kept) == before


def test_a_read_only_folder_under_raw_is_one_sentence_too(offline_copy, tmp_path, monkeypatch):
    """Where only a part is read-only the write fails midway: still one sentence naming the folder."""
    import errno

    from sources.kit import raw_store

    quotes = write_quotes(tmp_path / "q.csv", "acme,a.1x,H100 SXM,1,2.5,2026-11-20")

    def refused(path, body):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(raw_store, "write_atomically", refused)
    result = ingest(offline_copy, "quotes", quotes)
    folder = offline_copy / "raw" / "quotes_file" / DAY
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert f"error: gpucalc cannot write to {folder} (read-only for this user)" in result.output
    assert query(offline_copy, "select count(*) from price_quote where provider = 'acme'") == [(0,)]
