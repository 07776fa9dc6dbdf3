"""`gpucalc ingest`, `replay` and `sources` through the real command line (typer's CliRunner).

No Prefect server: these commands call the plain writer. One ingest of the SkyPilot AWS
fixture (real format, with a bad price and a wrong GPU count in it) is made once per module
and copied for the tests that change it.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import duckdb
import pytest

from tests.flows.cli_helpers import gpucalc, query

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AWS = FIXTURES / "skypilot" / "aws_vms.csv"
DAY = "2026-03-01"
COUNTED = ("price_quote", "benchmark_result", "rejected_row", "raw_payload", "estimate", "topology_estimate")


Ask = Callable[..., list[tuple]]


@contextmanager
def reading(data: Path) -> Iterator[Ask]:
    """Rows of each question asked, over one read-only connection to `<data>/warehouse.duckdb`.

    Opening the warehouse costs more than the counts asked of it, so a test's questions between
    two commands share one opening; it is closed before the next command writes.
    """
    con = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        yield lambda sql, params=None: con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def counts(ask: Ask) -> dict[str, int]:
    return {t: ask(f"select count(*) from {t}")[0][0] for t in COUNTED}


@pytest.fixture(scope="module")
def aws_day(tmp_path_factory) -> tuple[Path, str]:
    data = tmp_path_factory.mktemp("aws_day")
    result = gpucalc("ingest", "skypilot", "--file", str(AWS), "--provider", "aws", "--date", DAY,
                     "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    return data, result.output


@pytest.fixture
def copy_of(tmp_path, aws_day) -> Path:
    target = tmp_path / "data"
    shutil.copytree(aws_day[0], target)
    return target


def test_ingest_loads_the_aws_catalog_as_observed_on_the_date(aws_day):
    data, output = aws_day
    with reading(data) as ask:
        rows = ask("""select distinct usd_per_instance_hour, gpus_per_instance, usd_per_gpu_hour, gpu, observed_at
                      from price_quote where instance_type = 'p5.48xlarge' and pricing = 'on_demand'""")
        ((path, url, size, run_id),) = ask("select path, url, bytes, run_id from raw_payload")
        logged = ask("select mode, status from run_log where run_id = ?", [run_id])
        estimates = counts(ask)["estimate"]
    assert rows == [(55.04, 8.0, 6.88, "H100-SXM", date(2026, 3, 1))]
    # counts and the first rejected rows, with their rule, are printed
    assert "skypilot: ok, 9 rows loaded, 2 rejected from 1 kept payload(s)" in output
    assert "rejected row 8 [unparseable_price]" in output and "'abc'" in output
    assert "rejected row 9 [gpu_count_mismatch]" in output
    # kept as received, with its hash, and indexed
    kept = data / "raw" / "skypilot" / DAY / "aws_vms.csv"
    assert kept.read_bytes() == AWS.read_bytes()
    assert (kept.parent / "aws_vms.csv.meta.json").exists()
    assert (path, url, size) == ("raw/skypilot/2026-03-01/aws_vms.csv", str(AWS), len(AWS.read_bytes()))
    assert logged == [("ingest", "success")]
    assert estimates > 0


def test_ingesting_the_same_file_twice_changes_nothing(copy_of, tmp_path):
    with reading(copy_of) as ask:
        before = counts(ask)
    # the same catalog under SkyPilot's own file name: kept as aws_vms.csv, like the live fetch
    vms = tmp_path / "vms.csv"
    shutil.copy(AWS, vms)
    result = gpucalc("ingest", "skypilot", "--file", str(vms), "--provider", "aws", "--date", DAY,
                     "--data-dir", str(copy_of))
    assert result.exit_code == 0, result.output
    assert "raw/skypilot/2026-03-01/aws_vms.csv" in result.output and "replaces" not in result.output
    with reading(copy_of) as ask:
        assert counts(ask) == before
        assert ask("select count(*) from run_log where mode = 'ingest'")[0][0] == 2


def test_a_file_that_cannot_be_read_is_refused_and_touches_nothing_else(copy_of, tmp_path):
    garbage = tmp_path / "vms.csv"
    garbage.write_text("hello,world\n1,2\n")
    with reading(copy_of) as ask:
        before = counts(ask)
    result = gpucalc("ingest", "skypilot", "--file", str(garbage), "--provider", "gcp", "--date", DAY,
                     "--data-dir", str(copy_of))
    assert result.exit_code == 1
    assert "could not be read as skypilot" in result.output and "required column" in result.output
    with reading(copy_of) as ask:
        after = counts(ask)
        assert after.pop("rejected_row") == before.pop("rejected_row") + 1
        assert after == before
        ((rule, detail),) = ask("select rule, detail from rejected_row where rule = 'source_unusable'")
        assert str(garbage) in detail
        assert ask("select status from run_log order by started_at desc limit 1") == [("failed",)]
    assert sorted(p.name for p in (copy_of / "raw" / "skypilot" / DAY).iterdir()) == [
        "aws_vms.csv", "aws_vms.csv.meta.json"
    ]


def test_a_device_or_a_folder_is_not_a_payload_file(tmp_path):
    """/dev/zero would be read for ever (its size says 0); it was reported as missing."""
    result = gpucalc("ingest", "quotes", "--file", "/dev/zero", "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "/dev/zero is not a regular file" in result.output, result.output
    result = gpucalc("ingest", "quotes", "--file", str(tmp_path), "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "is a folder; quotes_file loads one file at a time" in result.output
    result = gpucalc("ingest", "quotes", "--file", str(tmp_path / "nothing.csv"), "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "no file at" in result.output
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_a_data_directory_that_is_a_file_is_said_at_once(tmp_path):
    """`run` failed with 'Not a directory: <file>/logs' and a hint to read a log it could not write."""
    afile = tmp_path / "data"
    afile.write_text("not a folder")
    flag = (["sources", "--data-dir", str(afile)], None)
    variable = (["sql", "select 1"], {"GPUCALC_DATA_DIR": str(afile)})
    for args, env in (flag, variable):
        result = gpucalc(*args, env=env)
        said = " ".join(result.output.replace("│", " ").split())  # the usage box wraps the long path
        assert result.exit_code == 2 and "is a file, not a folder" in said, result.output
    assert afile.read_text() == "not a folder"


def test_replay_rebuilds_the_day_from_the_kept_payloads_alone(aws_day, tmp_path):
    data = tmp_path / "fresh"
    shutil.copytree(aws_day[0] / "raw", data / "raw")  # the raw payloads, no warehouse
    result = gpucalc("replay", "--date", DAY, "--data-dir", str(data))
    assert result.exit_code == 0, result.output
    assert "replayed 1 kept payloads for 2026-03-01" in result.output
    rows = "select * exclude (run_id, extracted_at) from price_quote order by all"
    index = "select path, sha256 from raw_payload"
    with reading(data) as ask, reading(aws_day[0]) as ingested:
        assert ask(rows) == ingested(rows)
        assert ask("select mode, status from run_log") == [("replay", "success")]
        assert ask(index) == ingested(index)


def test_replay_with_a_changed_schema_fails_that_source_only_and_keeps_its_rows(copy_of):
    from sources.kit import raw_store
    from sources.kit.spec import Payload

    # the source renamed a column: what it sent that day, kept as it was sent
    kept = copy_of / "raw" / "skypilot" / DAY / "aws_vms.csv"
    renamed = kept.read_bytes().replace(b"AcceleratorCount", b"GpuCount", 1)
    raw_store.save(Payload("skypilot", "aws_vms.csv", renamed, "https://example/aws_vms.csv", "aws"),
                   copy_of / "raw", date.fromisoformat(DAY))
    # a runs file dropped in by hand (no .meta.json) is replayed too
    runs = copy_of / "raw" / "user_runs" / DAY / "runs.csv"
    runs.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "user_runs" / "runs.csv", runs)
    before = query(copy_of, "select count(*) from price_quote where source = 'skypilot'")

    result = gpucalc("replay", "--date", DAY, "--data-dir", str(copy_of))
    assert result.exit_code == 3  # partial: one source failed, the other loaded
    assert "skypilot: failed" in result.output and "AcceleratorCount" in result.output
    assert "user_runs: ok, 1 rows loaded" in result.output
    with reading(copy_of) as ask:
        assert ask("select count(*) from price_quote where source = 'skypilot'") == before
        assert ask("select count(*) from rejected_row where rule = 'source_unusable'") == [(1,)]
        assert ask("select status from run_log where mode = 'replay'") == [("partial",)]
        assert ask("select source, status from source_status where run_id = "
                   "(select run_id from run_log where mode = 'replay') order by source") == [
            ("skypilot", "failed"), ("user_runs", "ok")
        ]
        assert ("raw/user_runs/2026-03-01/runs.csv",) in ask("select path from raw_payload")


def test_a_kept_payload_edited_after_it_was_kept_is_not_loaded_and_says_how_to_load_it(copy_of):
    kept = copy_of / "raw" / "skypilot" / DAY / "aws_vms.csv"
    kept_sha = hashlib.sha256(kept.read_bytes()).hexdigest()
    kept.write_bytes(kept.read_bytes().replace(b"55.04", b"5.504", 1))  # a hand edit of the evidence
    before = query(copy_of, "select count(*), sum(usd_per_instance_hour) from price_quote where source = 'skypilot'")
    result = gpucalc("replay", "--date", DAY, "--data-dir", str(copy_of))
    assert result.exit_code == 1 and "skypilot: failed" in result.output, result.output
    assert "aws_vms.csv changed since it was kept on" in result.output
    assert f"(sha256 {kept_sha[:16]} then" in result.output
    assert f"`gpucalc ingest skypilot --file {kept} --provider aws --date {DAY}`" in result.output
    assert query(copy_of, "select count(*), sum(usd_per_instance_hour) from price_quote "
                          "where source = 'skypilot'") == before  # the rows it gave stay
    # the way the message gives: ingest the file as it is now, then it replays
    again = gpucalc("ingest", "skypilot", "--file", str(kept), "--provider", "aws", "--date", DAY,
                    "--data-dir", str(copy_of))
    assert again.exit_code == 0, again.output
    assert gpucalc("replay", "--date", DAY, "--data-dir", str(copy_of)).exit_code == 0
    assert query(copy_of, "select min(usd_per_instance_hour) from price_quote where source = 'skypilot' "
                          "and instance_type = 'p5.48xlarge' and pricing = 'on_demand'") == [(5.504,)]


def test_replay_of_a_day_with_nothing_kept_says_so(tmp_path):
    result = gpucalc("replay", "--date", DAY, "--data-dir", str(tmp_path))
    assert result.exit_code == 1
    assert "no payloads of a known source kept for 2026-03-01" in result.output


def test_runs_and_quotes_are_names_for_the_file_only_sources(copy_of):
    result = gpucalc("ingest", "runs", "--file", str(FIXTURES / "user_runs" / "runs.csv"), "--date", DAY,
                     "--data-dir", str(copy_of))
    assert result.exit_code == 0, result.output
    assert "user_runs: ok, 1 rows loaded, 0 rejected" in result.output
    assert query(copy_of, "select value, gpu from benchmark_result where source = 'user_runs'") == [
        (14800.0, "RTX-PRO-6000-WS")
    ]
    assert (copy_of / "raw" / "user_runs" / DAY / "runs.csv").exists()


def test_sources_lists_every_source_with_key_liveness_and_staleness(aws_day, monkeypatch):
    monkeypatch.setenv("RUNPOD_API_KEY", "x")
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)
    result = gpucalc("sources", "--data-dir", str(aws_day[0]))
    assert result.exit_code == 0, result.output
    out = result.output
    for name in ("skypilot", "azure_retail", "aws_pricelist", "vast", "runpod", "lambda_cloud", "mlperf",
                 "quotes_file", "user_runs"):
        assert f"\n{name}  [" in "\n" + out
    assert "runpod  [prices] live; key RUNPOD_API_KEY (set)" in out
    assert "lambda_cloud  [prices] live; key LAMBDA_API_KEY (NOT set: skipped)" in out
    assert "quotes_file  [prices] file-only (gpucalc ingest quotes --file PATH); no key" in out
    # skypilot was loaded on 2026-03-01, long before today: stale, with its counts
    assert "last good load 2026-03-01: 9 rows loaded, 2 rejected; STALE" in out
    assert "STALE source = no successful load in the last 2 days" in out
    # what ranked that night: the 9 quotes observed on it; the snapshot of 2026-11-01 came later
    assert "\n    live skypilot: 9 quotes ranked, 0 stale; last fetch " in out
    assert ("\n    bundled snapshot of 2026-11-01 (after the night of 2026-03-01: only its quotes observed by "
            "then count): no quotes\n") in out


def test_sources_says_first_which_prices_ranked_after_an_offline_run(offline_data):
    """The bundled snapshot's 133 quotes: 7 observed 2026-09-20, 42 days before its date of
    2026-11-01 and past the 30-day window, are stale; the other 126 ranked."""
    out = gpucalc("sources", "--data-dir", str(offline_data)).output
    assert out.startswith(
        "prices ranked on the night of 2026-11-29 (the warehouse's newest):\n"
        "    live sources: none fetched by then (`gpucalc run` without --offline fetches them)\n"
        "    your quotes: none (`gpucalc ingest quotes --file PATH` adds them)\n"
        "    bundled snapshot of 2026-11-01 (28 days old at the night of 2026-11-29): 126 quotes ranked, 7 stale\n"
    )
    assert "skypilot  [prices] live; no key\n" in out and "; STALE" not in out
    assert "\n    last fetch never; last good load never: none of its quotes rank\n" in out


def test_sources_works_before_any_warehouse_exists(tmp_path):
    result = gpucalc("sources", "--data-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "skypilot  [prices] live; no key" in result.output
    assert "last fetch never; last good load never" in result.output
    assert "no warehouse at" in result.output
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_unknown_names_are_refused_before_anything_runs(tmp_path):
    result = gpucalc("run", "--sources", "skypilot,nope", "--data-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "unknown source 'nope'" in result.output
    result = gpucalc("run", "--sources", "quotes", "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "file-only" in result.output
    result = gpucalc("ingest", "nope", "--file", str(AWS), "--data-dir", str(tmp_path))
    assert result.exit_code == 2 and "unknown source 'nope'" in result.output
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_an_unresolved_gpu_name_is_visible_and_one_alias_line_plus_replay_recovers_its_rows(offline_copy, tmp_path):
    quotes = tmp_path / "quotes.csv"
    quotes.write_text("provider,instance_type,gpu_name,gpus_per_instance,usd_per_gpu_hour\n"
                      "lab,lab.8x,Hopper-80-lab,8,2.1\nlab,lab.1x,H100 SXM,1,2.3\n")
    result = gpucalc("ingest", "quotes", "--file", str(quotes), "--date", DAY, "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    assert "[unknown_gpu]" in result.output and "'Hopper-80-lab': no catalog accelerator" in result.output
    listing = gpucalc("sources", "--data-dir", str(offline_copy)).output
    assert "1 rows (50%) rejected at that load because their GPU name did not resolve" in listing

    (offline_copy / "catalog").mkdir()
    alias = "alias,gpu_id,note\nHopper-80-lab,H100-SXM,our lab's name\n"
    (offline_copy / "catalog" / "gpu_alias.csv").write_text(alias)
    assert gpucalc("replay", "--date", DAY, "--data-dir", str(offline_copy)).exit_code == 0
    with reading(offline_copy) as ask:
        assert ask("select instance_type, gpu from price_quote where provider = 'lab' order by 1") == [
            ("lab.1x", "H100-SXM"), ("lab.8x", "H100-SXM")
        ]
        assert ask("select count(*) from rejected_row where rule = 'unknown_gpu'") == [(0,)]


def test_a_local_mlperf_results_checkout_loads_as_the_live_fetch_would(offline_copy):
    tree = FIXTURES / "mlperf" / "inference_results_v5.1"
    result = gpucalc("ingest", "mlperf", "--file", str(tree), "--date", DAY, "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    rows = query(offline_copy, """select count(*), count(distinct gpu), min(value) > 0 from benchmark_result
                                  where source = 'mlperf'""")
    assert rows[0][0] > 0 and rows[0][2]
    kept = sorted(p.name for p in (offline_copy / "raw" / "mlperf" / DAY).glob("*.json") if ".meta" not in p.name)
    assert kept and all(name.startswith("inference_results_v5.1__") for name in kept)
