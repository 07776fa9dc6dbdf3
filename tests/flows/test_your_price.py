"""Your own price in `compare` and `serve` (issue 35, item 2): `--price PLATFORM=PRICE[@BASIS]`
replaces the market's quotes of that platform's accelerator on that basis in the answer's private
copy, ranks as a quote would, and is named "your price" wherever it appears."""

from __future__ import annotations

import json

import pytest

from tests.flows.cli_helpers import gpucalc, query
from warehouse.questions.whatif_inputs import WhatIfError
from warehouse.questions.your_price import GivenPrice

# deepseek-r1-mtp: 100,000 accepted output tokens/s, a GB200 NVL72 fleet of 16 GPUs (4 trays of 4)
DEMAND = 100_000


def test_compare_ranks_your_gpu_hour_price_in_place_of_the_market_and_names_it(offline_copy):
    # a private copy: this test opens the file itself, as another configuration than the CLI's readers
    gb200_quotes = query(offline_copy, "select count(*) from price_quote where gpu = 'GB200'")
    result = gpucalc("compare", "deepseek-r1-mtp", "--platforms", "gb200-nvl72,hgx-b200-8,hgx-h200-8",
                     "--pricing", "on_demand", "--price", "gb200-nvl72=10.50/gpu-h", "--price", "B200=44/system-h",
                     "--json", "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    # the market rents GB200 by the 4-GPU tray: your price is a tray at 4 x $10.50
    assert ("your price: $10.50 per GPU-hour of gb200-nvl72 ($42.00 per 4-GPU instance) on on_demand, "
            "in place of 2 on_demand quotes of GB200") in result.stderr
    choices = {c["platform_id"]: c for c in json.loads(result.stdout)["choices"] if c["platform_id"]}
    yours, market = choices["gb200-nvl72"], choices["hgx-h200-8"]
    assert (yours["provider"], yours["price_source"], yours["price_source_ref"]) == (
        "your price", "your_price", "--price gb200-nvl72=10.50/gpu-h")
    assert (yours["gpus_per_instance"], yours["usd_per_gpu_hour"]) == (4, 10.5)
    assert yours["usd_per_hour"] == pytest.approx(10.5 * yours["n_gpus"])
    # per million tokens at the demand: $/h over the tokens of an hour
    assert yours["usd_per_mtok"] == pytest.approx(10.5 * yours["n_gpus"] / (DEMAND * 3600 / 1e6))
    assert (choices["hgx-b200-8"]["provider"], choices["hgx-b200-8"]["usd_per_gpu_hour"]) == ("your price", 5.5)
    assert market["provider"] != "your price"  # a platform you gave no price keeps tonight's market
    # your prices for two platforms are no provider's pair
    assert json.loads(result.stdout)["like_for_like"]["same_provider"] == []
    # only the private copy had your price
    assert query(offline_copy, "select count(*) from price_quote where gpu = 'GB200'") == gb200_quotes


def test_serve_takes_a_system_hour_price_on_another_basis_and_says_whose_it_is(offline_data):
    result = gpucalc("serve", "--model", "llama2-70b", "--demand", "5000", "--input-len", "1024", "--output-len", "512",
                     "--platforms", "hgx-b200-8", "--pricing", "spot", "--price", "B200=16/system-h@spot",
                     "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    assert "your price: $2.00 per GPU-hour of hgx-b200-8 ($16.00 per 8-GPU instance) on spot" in result.stderr
    assert "from your quote [your price, as spot]:" in " ".join(result.stdout.split())
    assert "capacity unknown" not in result.stdout  # your own provider's capacity is yours to know


@pytest.mark.parametrize(("typed", "says"), [
    ("gb200-nvl72", "use PLATFORM=PRICE[@BASIS]"),
    ("=5/gpu-h", "use PLATFORM=PRICE[@BASIS]"),
    ("gb200-nvl72=3.4x", "a multiple of another price needs a baseline"),
    ("gb200-nvl72=5/gpu-h@owned", "owning is priced by --years"),
    ("gb200-nvl72=5/gpu-h@weekly", "the basis is one of on_demand, spot, reserved_1y, reserved_3y"),
    ("gb200-nvl72=0/gpu-h", "must be above zero"),
])
def test_a_price_that_cannot_be_read_is_one_sentence(typed, says):
    with pytest.raises(WhatIfError) as caught:
        GivenPrice.parse(typed)
    assert says in str(caught.value)


def test_two_prices_for_one_accelerator_and_basis_or_an_unknown_name_are_refused(offline_data):
    twice = gpucalc("compare", "deepseek-r1-mtp", "--price", "gb200-nvl72=5/gpu-h", "--price", "GB200=6/gpu-h",
                    "--data-dir", str(offline_data))
    assert twice.exit_code == 2
    assert "--price 'GB200=6/gpu-h': 'gb200-nvl72=5/gpu-h' already prices GB200 on on_demand" in twice.stderr
    unknown = gpucalc("compare", "deepseek-r1-mtp", "--price", "nope=5/gpu-h", "--data-dir", str(offline_data))
    assert unknown.exit_code == 2 and "'nope' is no accelerator or platform gpucalc knows" in unknown.stderr
