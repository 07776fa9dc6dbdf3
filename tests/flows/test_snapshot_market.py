"""The bundled price snapshot stands in for every provider no live price source has priced:
your quotes and runs add to the market, a live source's quotes replace the snapshot's for
their provider only, and every kind of run (offline night, ingest, replay) leaves the same
market, which the run's summary names. The snapshot holds 133 quotes, 25 of them AWS's."""

from pathlib import Path

from tests.conftest import OFFLINE_DAY
from tests.flows.cli_helpers import query
from warehouse.loading.backfill import ingest_file
from warehouse.loading.load import RunContext
from warehouse.loading.writer import new_run_id, write_run
from warehouse.store.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OTHERS = "azure, coreweave, digitalocean, gcp, lambda, nebius, oci, paperspace, runpod, shadeform, vast, verda"


def snapshot_providers(data: Path) -> dict[str, int]:
    return dict(query(data, "select provider, count(*) from price_quote where source = 'bundled_snapshot' group by 1"))


def offline_night(data: Path) -> dict:
    run = RunContext.new(new_run_id(OFFLINE_DAY), OFFLINE_DAY)
    return write_run(Workspace.resolve(data), run, "offline", [], bundled_prices=True)


def test_your_quotes_add_to_the_snapshot(offline_copy):
    quotes = ingest_file("quotes", FIXTURES / "quotes_file" / "quotes.csv", None, OFFLINE_DAY,
                         Workspace.resolve(offline_copy))
    assert quotes.ok and sum(snapshot_providers(offline_copy).values()) == 133
    assert query(offline_copy, "select count(*) from price_quote where source = 'quotes_file'")[0][0] > 0
    assert quotes.summary["prices"] == (
        f"prices: bundled snapshot of 2026-11-01 for aws, {OTHERS}; your files for example-neocloud, self"
    )


def test_a_live_sources_quotes_retire_only_their_providers_snapshot_rows_for_good(offline_copy):
    aws = ingest_file("skypilot", FIXTURES / "skypilot" / "aws_vms.csv", "aws", OFFLINE_DAY,
                      Workspace.resolve(offline_copy))
    assert aws.ok
    left = snapshot_providers(offline_copy)
    assert "aws" not in left and sum(left.values()) == 133 - 25
    assert aws.summary["prices"] == f"prices: bundled snapshot of 2026-11-01 for {OTHERS}; live for aws"
    # an offline night afterwards does not bring AWS's snapshot back: the market stays as it is
    night = offline_night(offline_copy)
    assert snapshot_providers(offline_copy) == left
    assert night["prices"] == aws.summary["prices"]
