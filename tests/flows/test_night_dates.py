"""A night dated before its data is history, not an empty market: the bundled rows it has not
reached are neither loaded nor rejected, and what earlier nights stored stays. A date outside
the years gpucalc reads dates in (2000-2100) is refused with one sentence, exit 2.

The bundled benchmarks counted by measured_at: 135 up to 2024-08-28, 140 after it (EARLY
below); the price snapshot's 133 quotes are of 2026-11-01 (125 catalog
copies), 2026-09-20 (CoreWeave's page, 7) and 2026-10-07 (DigitalOcean's, 1): all after the early night."""

from datetime import date
from pathlib import Path

import pytest
import typer

from flows.cli_app import parse_date
from tests.flows.cli_helpers import gpucalc, query
from warehouse.loading.load import RunContext
from warehouse.loading.writer import new_run_id, write_run
from warehouse.store.workspace import Workspace

# after 135 of the bundled benchmarks (Inference v4.0-v4.1, Training v4.0), before the other 140 and the snapshot
EARLY = date(2024, 9, 1)


def night(data: Path, day: date) -> dict:
    """`gpucalc run --offline --date day`, without Prefect: the writer the flow calls."""
    run = RunContext.new(new_run_id(day), day)
    return write_run(Workspace.resolve(data), run, "offline", [], bundled_prices=True)


def stored(data: Path) -> tuple[int, int, int]:
    # one question, so the warehouse is opened once for the three counts
    return query(data, "select (select count(*) from price_quote), (select count(*) from benchmark_result), "
                       "(select count(*) from rejected_row)")[0]


def test_a_night_dated_before_the_stored_data_keeps_it(offline_copy):
    assert stored(offline_copy) == (133, 466, 0)
    summary = night(offline_copy, EARLY)
    assert summary["status"] == "success"
    assert stored(offline_copy) == (133, 466, 0)  # nothing emptied, nothing rejected as date_in_future
    # the estimates stay those of the newest night, 2026-11-29, which ranks the snapshot
    assert summary["prices"].startswith(
        "prices: bundled snapshot of 2026-11-01 for aws, azure, coreweave, digitalocean, gcp"
    )


def test_a_first_night_dated_before_the_bundled_data_loads_what_it_had_seen(tmp_path):
    summary = night(tmp_path, EARLY)
    assert stored(tmp_path) == (0, 135, 0)
    assert summary["prices"] == (
        "prices: none observed by 2024-09-01 (the bundled snapshot of 2026-11-01 is after 2024-09-01)"
    )
    night(tmp_path, date(2026, 11, 29))
    assert stored(tmp_path) == (133, 466, 0)


@pytest.mark.parametrize("day", ["0001-01-01", "1900-01-01", "1999-12-31"])
def test_a_date_outside_2000_2100_is_refused(tmp_path, day):
    for command in (["run", "--offline"], ["replay"], ["ingest", "runs", "--file", str(tmp_path / "runs.csv")]):
        result = gpucalc(*command, "--date", day, "--data-dir", str(tmp_path))
        said = " ".join(result.output.replace("│", " ").split())
        assert result.exit_code == 2, result.output
        assert f"{day} is outside 2000-2100, the years gpucalc reads dates in" in said
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_the_window_is_the_one_the_file_reader_uses():
    assert parse_date("2000-01-01") == date(2000, 1, 1)
    assert parse_date("2100-12-31", not_after_today=False) == date(2100, 12, 31)
    with pytest.raises(typer.BadParameter, match="2101-01-01 is outside 2000-2100"):
        parse_date("2101-01-01", not_after_today=False)
