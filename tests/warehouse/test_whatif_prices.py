"""`whatif` on every price basis, with ownership assumptions set for the question, and its
refusal of a measurement the hardware cannot make: the toy catalog, numbers worked by hand.

Rates (test_role_layouts.py): the toy 3+1 makes min(3 x 10,000, 50,000) = 30,000 tokens/s,
so a measured 30,000 calibrates nothing away (factor 1); 4 GPUs shared make 33,244 (their four
drafters all-reduce the gradients over PCIe each step). The job is 1e9 tokens:
1e9 / 30,000 / 3600 = 9.2593 h for the baseline, 8.3556 h shared.
Quotes: a 4-GPU toy instance at 8 USD/h on demand and 2 USD/h spot; a 1-GPU small toy at
0.50 USD/h on demand.
"""

import dataclasses

import pytest

from tests.warehouse.toy_roles import RUN_DATE, add_quote, role_catalog, synced_drafter_rate
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference
from warehouse.questions.whatif_checks import check_measurement
from warehouse.questions.whatif_compare import answer
from warehouse.questions.whatif_inputs import SideSpec, WhatIfError

BASE_H = 1e9 / 30_000 / 3600
SHARED_H = 1e9 / (1 / (1 / 40_000 + 1 / synced_drafter_rate(4, 50_000, 2e9, 32, 1000, 1000))) / 3600
PAIR_H = 1e9 / 20_000 / 3600  # 2 toys + 1 small toy: the targets' 20,000 set the pace
# owned for 2 years at 50% utilisation, PUE 1, 0.10 USD/kWh, no colocation:
# (capex / (2 x 8760) + kW x 0.10) / 0.5 per system-hour
OWNED_WS4 = (40_000 / (2 * 8760) + 2.0 * 0.1) / 0.5  # 4.9662 USD/h
OWNED_NODE2 = (20_000 / (2 * 8760) + 1.0 * 0.1) / 0.5  # 2.4831
OWNED_SMALL = (5_000 / (2 * 8760) + 0.5 * 0.1) / 0.5  # 0.6708


@pytest.fixture(scope="module")
def toy():
    from warehouse.store import db

    con = db.connect(":memory:")
    load_reference(con, role_catalog(), RunContext.new("toy", RUN_DATE))
    add_quote(con, "toy.4x", "TOY", 4, 8.0, "on_demand")
    add_quote(con, "toy.4x", "TOY", 4, 2.0, "spot")
    add_quote(con, "toys.1x", "TOY-S", 1, 0.5, "on_demand")
    result = answer(
        con, "toy-pipeline", SideSpec.parse("toy-ws-4:4/3+1"),
        [SideSpec.parse("toy-ws-4:4/shared"), SideSpec.parse("toy-node-2:2+toys-2:1"),
         SideSpec.parse("toy-node-2:8@1.5/gpu-h")],
        measured_tokens_per_s=30_000, pricing="all", ownership={"ownership_years": 2, "ownership_utilization": 0.5},
        run_date=RUN_DATE,
    )
    yield con, result
    con.close()


def test_every_basis_is_priced_on_its_own(toy):
    _, result = toy
    base, shared = result.baseline, result.comparisons[0]
    assert result.pricing == ("on_demand", "spot", "reserved_1y", "reserved_3y", "owned")
    assert base.prices["on_demand"].usd_total == pytest.approx(8.0 * BASE_H)
    # a measured time already holds its restarts: no spot overhead on the baseline
    assert base.prices["spot"].usd_total == pytest.approx(2.0 * BASE_H)
    # the candidate on spot pays 10% more hours for restarts (spot_restart_overhead)
    assert shared.candidate.prices["spot"].usd_total == pytest.approx(2.0 * SHARED_H * 1.1)
    assert shared.costs["spot"].ratio == pytest.approx(2.0 * SHARED_H * 1.1 / (2.0 * BASE_H))
    assert shared.costs["on_demand"].ratio == pytest.approx(SHARED_H / BASE_H)  # 0.9: same instance, fewer hours
    # no reserved quote for toys: said, not filled in from another basis
    assert base.prices["reserved_1y"].usd_total is None
    assert shared.costs["reserved_1y"].cheaper == "unknown (no reserved_1y price for the baseline)"
    assert (base.price_basis, base.usd_total) == ("on_demand", pytest.approx(8.0 * BASE_H))


def test_ownership_flags_change_the_owned_price(toy):
    _, result = toy
    base = result.baseline.prices["owned"]
    assert base.usd_per_hour == pytest.approx(OWNED_WS4) and "2 years at 50% utilisation" in base.note
    assert any("Owned: 2 years, 50% utilisation" in a for a in result.assumptions)


def test_drafters_on_another_gpu_type_price_each_part(toy):
    _, result = toy
    pair = result.comparisons[1].candidate
    assert (pair.n_gpus, pair.drafter_platform_id, pair.drafter_gpus) == (3, "toys-2", 1)
    assert pair.tokens_per_s == pytest.approx(20_000)
    # targets: the 4-GPU toy instance holds the 2 targets (8 USD/h); drafter: 0.50 USD/h
    assert pair.prices["on_demand"].usd_per_hour == pytest.approx(8.5)
    assert pair.prices["on_demand"].usd_total == pytest.approx(8.5 * PAIR_H)
    assert pair.prices["owned"].usd_total == pytest.approx((OWNED_NODE2 + OWNED_SMALL) * PAIR_H)
    # the small toy has no spot quote, so the side has no spot price
    assert pair.prices["spot"].usd_total is None
    # hidden states: 20,000 x 50 kB = 1 GB/s of the 2 GB/s the NICs carry
    assert pair.transfer == {"needed_gbs": pytest.approx(1.0), "capacity_gbs": pytest.approx(2.0),
                             "link": "network transfer"}


def test_a_given_price_is_labelled_and_used_on_every_basis(toy):
    _, result = toy
    nodes = result.comparisons[2]
    # 8 GPUs over 4 nodes, shared: targets 80,000 tokens/s; the eight drafters all-reduce over the
    # 1 GB/s network, 2 x 7/8 x 2 GB = 3.5 s per step of 1e6 tokens (2.5 s of training):
    # 1 / (1/80,000 + 1/167,038) = 54,093 tokens/s; 8 x 1.50 USD/h
    assert nodes.candidate.layout.startswith("8 shared")
    drafters = synced_drafter_rate(8, 50_000, 2e9, 1, 1000, 1000)
    assert drafters == pytest.approx(1e6 / (2.5 + 3.5 - 1 / 75))
    assert nodes.candidate.tokens_per_s == pytest.approx(1 / (1 / 80_000 + 1 / drafters))
    point = nodes.candidate.prices["owned"]
    hours = 1e9 / nodes.candidate.tokens_per_s / 3600
    assert (point.source, point.usd_total) == ("given", pytest.approx(12.0 * hours))
    assert nodes.costs["owned"].ratio == pytest.approx(12.0 * hours / (OWNED_WS4 * BASE_H))


def test_the_measurement_uses_half_the_targets_peak(toy):
    _, result = toy
    # target forward 30,000 x 50 GFLOP on 3 x 1,000 TF = 50%; drafter 30,000 x 10 GFLOP on 1,000 TF = 30%
    assert result.baseline.peak_shares == {"target forward": pytest.approx(0.5), "drafter training": pytest.approx(0.3)}


def test_a_measurement_above_the_peak_is_refused_with_the_arithmetic(toy):
    con, result = toy
    # 75,000 x 50 GFLOP = 3,750 TFLOP/s on 3 GPUs of 1,000 TF: 125% of peak
    impossible = dataclasses.replace(result.baseline, tokens_per_s=75_000)
    with pytest.raises(WhatIfError, match=r"75,000 tokens/s x 50 GFLOP = 3,750 TFLOP/s on 3 GPU.*125% of peak"):
        check_measurement(con, result.workload, impossible, SideSpec.parse("toy-ws-4:4/3+1"))
    # without a given layout any split could have run: both roles on all 4 GPUs,
    # 75,000 x (50 + 10) GFLOP / 4,000 TF = 112.5%
    with pytest.raises(WhatIfError, match=r"= 4,000 TFLOP/s \((112|113)% of peak\)"):
        check_measurement(con, result.workload, impossible, SideSpec.parse("toy-ws-4:4"))
