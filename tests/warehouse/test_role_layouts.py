"""Role pipelines placed every way (041_topology_role.sql) on the toy catalog, against numbers
worked out by hand.

Per toy GPU (1,000 TF BF16, efficiencies 0.5, stage factors 1): a target forward of 50 GFLOP
per token makes 1e15 x 0.5 / 50e9 = 10,000 tokens/s; the drafter's 10 GFLOP per position x 1
position per token takes 1e15 x 0.5 / 10e9 = 50,000 tokens/s. Memory: the 1B target 2 GB +
34 x 1000 x 1000 B of activations = 2.034 GB; the drafter 16 x 1e9 + 2 x 1000 x 1000 x 2 +
5 x 34e6 = 16.174 GB; capacity 80 x 0.92 = 73.6 GB.
"""

import pytest

from tests.warehouse.toy_roles import RUN_DATE, role_catalog, synced_drafter_rate
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference


@pytest.fixture(scope="module")
def roles():
    from warehouse.store import db

    con = db.connect(":memory:")
    load_reference(con, role_catalog(), RunContext.new("toy", RUN_DATE))
    rebuild_estimates(con, "toy", RUN_DATE)
    yield con
    con.close()


def role(con, workload, platform, placement, n, producers=None, consumer_platform=None) -> dict:
    rows = con.execute(
        """select * from topology_role where workload_id = ? and platform_id = ? and placement = ? and n_gpus = ?
             and (? is null or producers = ?) and (? is null or consumer_platform_id = ?)""",
        [workload, platform, placement, n, producers, producers, consumer_platform, consumer_platform],
    ).pl().to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


def test_shared_gpus_run_both_roles_in_turn(roles):
    r = role(roles, "toy-pipeline", "toy-ws-4", "shared", 4)
    # targets 4 x 10,000; the four drafters train data-parallel: per step of 1,000 sequences of
    # 1,000 tokens, 1e6 / 200,000 = 5 s, then an all-reduce of the 1B drafter's 2 GB of gradients
    # over PCIe via the host at 32 GB/s, 2 x 3/4 x 2e9 / 32e9 = 0.09375 s, of which the last
    # sequence's backward hides 2/3 x 1,000 / 50,000 s: 1e6 / 5.0804 s = 196,835 tokens/s.
    # A GPU does both in turn: 1 / (1/40,000 + 1/196,835) = 33,244 tokens/s; no hidden state moves
    drafters = synced_drafter_rate(4, 50_000, 2e9, 32, 1000, 1000)
    assert drafters == pytest.approx(1e6 / (5 + 0.09375 - 1 / 75))
    assert r["tokens_per_s"] == pytest.approx(1 / (1 / 40_000 + 1 / drafters))
    assert r["transfer_rate"] is None and (r["producers"], r["consumers"], r["tp"]) == (4, 4, 1)
    assert r["mem_per_gpu_gb"] == pytest.approx(2.034 + 16.174)  # the target and a drafter on each GPU
    # 33,244 beats the best split, 3+1 at min(3 x 10,000, 50,000) = 30,000: the estimate takes it
    best = roles.execute(
        """select layout, tokens_per_s from topology_estimate
           where workload_id = 'toy-pipeline' and platform_id = 'toy-ws-4' and n_gpus = 4"""
    ).fetchone()
    assert best == ("4 shared (target and drafter on every GPU)", pytest.approx(r["tokens_per_s"], rel=1e-9))


def test_splits_over_several_nodes_cross_the_network_next_to_the_balance_point(roles):
    # toy-node-2: 2 GPUs per node, so 8 GPUs are 4 nodes; each NIC moves 1 GB/s / 50 kB = 20,000
    # tokens/s. Balance: 10,000 P = 20,000 C with P + C = 8 -> P = 5.33; kept: P = 3..7
    splits = roles.execute(
        """select producers, tokens_per_s, bottleneck, nodes from topology_role where workload_id = 'toy-pipeline'
           and platform_id = 'toy-node-2' and placement = 'split' and n_gpus = 8 order by producers"""
    ).fetchall()
    assert [p for p, *_ in splits] == [3, 4, 5, 6, 7]
    rates = {p: (rate, neck) for p, rate, neck, _ in splits}
    # 5+3: min(5 x 10,000, min(5, 3) x 20,000 = 60,000, 3 x 50,000) = 50,000, the target sets the pace
    assert rates[5] == (pytest.approx(50_000), "compute (target forward)")
    # 6+2: min(60,000, 2 x 20,000 = 40,000, 100,000): the network does
    assert rates[6] == (pytest.approx(40_000), "network transfer")
    assert {nodes for *_, nodes in splits} == {4}


def test_drafters_on_another_gpu_type(roles):
    r = role(roles, "toy-pipeline", "toy-node-2", "two-platform", 3, producers=2, consumer_platform="toys-2")
    # 2 toy targets make 20,000 tokens/s; one small-toy drafter takes 500e12 x 0.5 / 10e9 = 25,000;
    # hidden states: min(2 x 1 GB/s, 1 x 2 GB/s) = 2 GB/s / 50 kB = 40,000
    assert (r["producer_rate"], r["consumer_rate"], r["transfer_rate"]) == (
        pytest.approx(20_000), pytest.approx(25_000), pytest.approx(40_000))
    assert r["tokens_per_s"] == pytest.approx(20_000) and r["consumer_gpu_id"] == "TOY-S"
    assert r["nodes"] == 2 and r["layout"] == "2+1 (2 target on toy-node-2, 1 drafter on toys-2)"
    # power: (2 x 1.0 kW / 2 + 0.5 kW / 2) / 3 GPUs
    assert r["kw_per_gpu"] == pytest.approx((1.0 + 0.25) / 3)
    # never priced by the nightly estimate: one row there takes one platform's quotes
    priced = "select count(*) from topology_candidate where layout like '%drafter on toy%'"
    assert roles.execute(priced).fetchone() == (0,)


def test_a_target_too_big_for_one_gpu_runs_tensor_parallel(roles):
    # 60B in BF16 is 120 GB (+0.034 GB of activations): over 73.6 GB, so tp2 (60.02 GB per GPU).
    # Per token on a tp2 group: GEMMs 120e9 / (2 x 1e15 x 0.5) = 1.2e-4 s; all-reduces 2 per layer
    # x 10 layers of 1000 x 1000 x 2 B over 32 GB/s: 2 x 10 x (2 x 1/2 x 2e6 / 32e9) / 1000 tokens
    # = 1.25e-6 s -> 1 / (2 x 1.2125e-4) = 4,123.7 tokens/s per GPU
    split = role(roles, "toy-pipeline-big", "toy-ws-4", "split", 4)
    assert (split["tp"], split["producers"], split["consumers"]) == (2, 2, 2)
    assert split["producer_rate"] == pytest.approx(2 / (2 * (1.2e-4 + 1.25e-6)))
    assert split["mem_per_gpu_gb"] == pytest.approx(120.034 / 2) and split["layout"].endswith("target tp2")
    # shared needs the drafter too: 60.02 + 16.17 > 73.6, so tp4 (30.01 + 16.17). Per tp4 group:
    # GEMMs 6e-5 s, all-reduces 20 x (2 x 3/4 x 2e6 / 32e9) / 1000 = 1.875e-6 s -> 4,040.4 per GPU
    shared = role(roles, "toy-pipeline-big", "toy-ws-4", "shared", 4)
    per_gpu = 1 / (4 * (6e-5 + 1.875e-6))
    drafters = synced_drafter_rate(4, 50_000, 2e9, 32, 1000, 1000)  # as in the shared toy above
    assert shared["tp"] == 4 and shared["tokens_per_s"] == pytest.approx(1 / (1 / (4 * per_gpu) + 1 / drafters))
    # one toy GPU holds neither: 120.03 + 16.17 GB is refused with the reason
    refused = roles.execute("""select fits, refusal from topology_estimate
                               where workload_id = 'toy-pipeline-big' and platform_id = 'toy-1'""").fetchone()
    assert refused == (False, "needs 136.2 GB per GPU, has 73.6")
