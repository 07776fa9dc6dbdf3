"""The online nightly flow against recorded responses, under a throwaway Prefect server.

`sources.kit.http.make_session` is swapped for one that serves fixture files in the sources' real
formats (tests/sources/fakes.py): requests, urllib3's retries and Prefect's task retries all
run for real; only the socket is fake. Two nights: on the first SkyPilot and Vast answer; on
the second Vast returns HTTP 500 to every attempt. Lambda has no key in either.
"""

from datetime import date
from pathlib import Path

import pytest

from sources import skypilot, vast
from tests.flows.cli_helpers import query
from tests.sources.fakes import session_factory, url_key

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NIGHT_1, NIGHT_2 = date(2026, 3, 1), date(2026, 3, 2)
SOURCES = ["skypilot", "vast", "lambda_cloud"]
AWS_URL = skypilot.URL.format(version="v8", cloud="aws")


@pytest.fixture(autouse=True)
def _prefect(prefect_harness):
    """The run's one Prefect server (conftest), its flows run as `gpucalc run` runs them on its own."""
    yield


@pytest.fixture
def serve(monkeypatch):
    """Install recorded routes for the run; returns the fake so a test can count calls."""
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)

    def install(routes: dict):
        make, fake = session_factory(routes)
        monkeypatch.setattr("sources.kit.http.make_session", make)
        return fake

    return install


def test_online_run_loads_what_answers_keeps_what_failed_and_skips_what_has_no_key(tmp_path, serve):
    from flows.nightly import nightly

    aws = (FIXTURES / "skypilot" / "aws_vms.csv").read_bytes()
    bundles = (FIXTURES / "vast" / "bundles.json").read_bytes()

    # Night 1: every other SkyPilot cloud 404s (that cloud alone is skipped), Vast answers.
    serve({AWS_URL: [aws], vast.URL: [bundles]})
    first = nightly(run_date=NIGHT_1, offline=False, data_dir=str(tmp_path), sources=SOURCES)
    assert first["status"] == "success"
    assert {s["source"]: s["status"] for s in first["sources"]} == {
        "skypilot": "ok", "vast": "ok", "lambda_cloud": "skipped",
    }
    skipped = next(s for s in first["sources"] if s["source"] == "lambda_cloud")
    assert skipped["message"] == "set LAMBDA_API_KEY to enable"
    vast_rows = query(tmp_path, "select count(*) from price_quote where source = 'vast'")[0][0]
    assert vast_rows == 8

    # Night 2: Vast is down (500 on every attempt), SkyPilot answers again.
    fake = serve({AWS_URL: [aws], vast.URL: [(500, b"upstream error", {})]})
    second = nightly(run_date=NIGHT_2, offline=False, data_dir=str(tmp_path), sources=SOURCES)
    assert second["status"] == "partial"
    assert second["sources_failed"] == ["vast"]
    # one retry layer: 1 try + 4 urllib3 retries on a 5xx, no task retries on top
    assert sum(url_key(c) == url_key(vast.URL) for c in fake.calls) == 5

    # the good source is loaded for tonight, with the per-GPU price derived from the file
    (p5,) = query(
        tmp_path,
        """select usd_per_instance_hour, gpus_per_instance, usd_per_gpu_hour, gpu from price_quote
           where source = 'skypilot' and observed_at = ? and instance_type = 'p5.48xlarge'
             and zone = 'use1-az1' and pricing = 'on_demand'""",
        [NIGHT_2],
    )
    assert p5 == (55.04, 8.0, 6.88, "H100-SXM")

    # the failed source keeps last night's rows, says why, and is marked failed
    assert query(tmp_path, "select count(*) from price_quote where source = 'vast'")[0][0] == vast_rows
    assert query(tmp_path, "select distinct observed_at from price_quote where source = 'vast'") == [(NIGHT_1,)]
    status = dict(
        query(tmp_path, "select source, status from source_status where run_date = ?", [NIGHT_2])
    )
    assert status == {"skypilot": "ok", "vast": "failed", "lambda_cloud": "skipped"}
    ((rule, detail),) = query(
        tmp_path, "select rule, detail from rejected_row where source = 'vast' and run_date = ?", [NIGHT_2]
    )
    assert rule == "source_unusable" and "HTTP 500" in detail

    # every kept payload is indexed; nothing was kept for Vast on the night it failed
    payloads = query(tmp_path, "select source, run_date, name, path, bytes from raw_payload order by all")
    assert ("vast", NIGHT_1, "bundles.json", "raw/vast/2026-03-01/bundles.json", len(bundles)) in payloads
    assert not [p for p in payloads if p[0] == "vast" and p[1] == NIGHT_2]
    assert ("skypilot", NIGHT_2, "aws_vms.csv", "raw/skypilot/2026-03-02/aws_vms.csv", len(aws)) in payloads

    # the report names the failure and the last good day
    report = Path(second["report"]).read_text()
    vast_line = next(line for line in report.splitlines() if line.startswith("| vast "))
    assert "failed" in vast_line and "2026-03-01" in vast_line

    modes = query(tmp_path, "select mode, status from run_log order by started_at")
    assert modes == [("online", "success"), ("online", "partial")]
