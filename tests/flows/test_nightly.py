"""The nightly flow end to end on the bundled data, under a throwaway Prefect server."""

from datetime import date

import duckdb
import pytest

RUN_DATE = date(2026, 11, 29)
TABLES = (
    "gpu",
    "platform",
    "workload",
    "gpu_alias",
    "price_quote",
    "benchmark_result",
    "rejected_row",
    "topology_estimate",
    "estimate",
    "estimate_daily",
)


@pytest.fixture(autouse=True)
def _prefect(prefect_harness):
    """The run's one Prefect server (conftest), its flows run as `gpucalc run` runs them on its own."""
    yield


def counts(path):
    con = duckdb.connect(path, read_only=True)
    try:
        return {t: con.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()


def test_offline_nightly_builds_the_warehouse_and_report_and_is_idempotent(tmp_path):
    from flows.nightly import nightly

    first = nightly(run_date=RUN_DATE, offline=True, data_dir=str(tmp_path))
    assert first["status"] == "success" and first["kept"] is None
    warehouse = str(tmp_path / "warehouse.duckdb")
    report = tmp_path / "reports" / "2026-11-29" / "index.md"
    assert first["report"] == str(report)
    text = report.read_text()
    assert "# gpucalc report — 2026-11-29" in text
    assert "DFlash" in text and "Rent on-demand (fastest)" in text and "Rent on-demand (cheapest)" in text
    assert "## Rejected rows" in text and "## Where every input came from" in text

    before = counts(warehouse)
    assert before["gpu"] >= 24 and before["price_quote"] >= 60 and before["estimate"] > 0

    second = nightly(run_date=RUN_DATE, offline=True, data_dir=str(tmp_path))
    assert second["status"] == "success"
    assert counts(warehouse) == before  # same day, same rows
    con = duckdb.connect(warehouse, read_only=True)
    runs = con.execute("select count(*), count(distinct run_id) from run_log where status = 'success'").fetchone()
    con.close()
    assert runs == (2, 2)  # run_log is the one table that grows: a row per run
