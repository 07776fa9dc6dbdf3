"""Rent, buy or API, worked out by hand on the toy catalog: a serving fleet sized to a demand,
cost per accepted output token with speculative decoding, the utilisation at which buying beats
renting, spot time, and instances that cannot realise a layout."""

from datetime import date

import polars as pl
import pytest

from tests.flows.cli_helpers import query
from tests.warehouse.toy_catalog import toy_catalog
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference
from warehouse.store import db

RUN = RunContext.new("decide", date(2026, 11, 29))
# toy-offline on one toy GPU: batch 192, step 0.01 + 1.608e-4 x 192 s -> 4697.4 tokens/s (test_models)
OFFLINE_RATE = 192 / (0.01 + 1.608e-4 * 192)
DEMAND = 10_000.0
JOB = dict(kind="serving", model_id="toy-10b", dtype="bf16", total_tokens=DEMAND * 3600, input_len=1000,
           output_len=1000, scenario="Offline", demand_tokens_per_s=DEMAND, purpose="job", source="hand-made")


def _catalog():
    catalog = toy_catalog()
    jobs = [
        dict(JOB, workload_id="toy-demand", name="toy demand", token_unit="output tokens"),
        # the 1B toy drafts one token per step and 1.5 tokens are accepted per step
        dict(JOB, workload_id="toy-demand-spec", name="toy demand, speculative", spec_draft_len=1.0,
             spec_accept_len=1.5, consumer_model_id="toy-1b", token_unit="accepted output tokens"),
        # twice the demand under a 30 ms TPOT: the limit binds, so prompts are better run apart
        dict(JOB, workload_id="toy-demand-tpot", name="toy demand, 30 ms TPOT", token_unit="output tokens",
             tpot_ms=30.0, demand_tokens_per_s=2 * DEMAND, total_tokens=2 * DEMAND * 3600),
    ]
    catalog["workload"] = pl.concat(
        [catalog["workload"], pl.DataFrame(jobs, schema_overrides=catalog["workload"].schema)], how="diagonal_relaxed"
    )
    return catalog


def _quote(con, instance: str, gpus: int, usd: float, pricing: str, provider: str = "toycloud") -> None:
    con.execute(
        """insert into price_quote (provider, region, instance_type, gpu, gpu_name, gpus_per_instance,
                                    usd_per_instance_hour, usd_per_gpu_hour, pricing, currency, observed_at, source,
                                    source_ref, run_id)
           values (?, 'r1', ?, 'TOY', 'TOY', ?, ?, ? / ?, ?, 'USD', date '2026-11-29', 'test', 'hand', 'decide')""",
        [provider, instance, gpus, usd, usd, gpus, pricing],
    )


@pytest.fixture(scope="module")
def built():
    """The toy with an on-demand and a spot quote, built once for the tests that only read it."""
    con = db.connect(":memory:")
    load_reference(con, _catalog(), RUN)
    _quote(con, "toy.1", 1, 1.0, "on_demand")
    _quote(con, "toy.1", 1, 0.4, "spot")
    rebuild_estimates(con, "decide", RUN.run_date)
    yield con
    con.close()


def best(con, workload: str, pricing: str, platform: str = "toy-1") -> dict:
    rows = con.execute(
        "select * from platform_choice where workload_id = ? and pricing = ? and platform_id = ?",
        [workload, pricing, platform],
    ).pl()
    assert rows.height == 1, rows
    return rows.to_dicts()[0]


def test_a_serving_fleet_is_sized_to_the_demand(built):
    # 10,000 tokens/s at 4,697.4 per toy GPU: ceil(2.129) = 3 replicas of one GPU, 3 x 1 USD/h;
    # per million tokens: 3 USD / (10,000 x 3600 / 1e6) = 3 / 36
    row = best(built, "toy-demand", "on_demand")
    assert row["tokens_per_s"] == pytest.approx(OFFLINE_RATE)
    assert (row["deployments"], row["fleet_gpus"], row["instances"]) == (3, 3, 3)
    assert row["fleet_utilization"] == pytest.approx(DEMAND / (3 * OFFLINE_RATE))
    assert row["usd_per_hour"] == pytest.approx(3.0)
    assert row["usd_per_mtok"] == pytest.approx(3 / 36)


def test_a_demand_that_needs_more_gpus_than_a_fleet_may_have_is_refused_not_costed(own):
    # toy-demand needs 3 one-GPU replicas on toy-1 (above): a cap of 3 GPUs sizes it, 2 refuses it
    # with the reason; a demand of 1e30 tokens/s is refused the same way instead of overflowing
    # the replica count's integer
    for cap, fits in ((3, True), (2, False)):
        own.execute("update assumption set value = ? where name = 'max_fleet_gpus'", [cap])
        rebuild_estimates(own, "decide", RUN.run_date)
        ((fleet_fits, refusal),) = own.execute(
            """select fits, refusal from topology_estimate
               where workload_id = 'toy-demand' and platform_id = 'toy-1' and n_gpus = 1""").fetchall()
        assert fleet_fits is fits
        assert refusal == (None if fits else "the demand needs a fleet of more than 2 GPUs (max_fleet_gpus)")
    own.execute("update assumption set value = 1e7 where name = 'max_fleet_gpus'")
    own.execute("update workload set demand_tokens_per_s = 1e30 where workload_id = 'toy-demand'")
    rebuild_estimates(own, "decide", RUN.run_date)
    assert own.execute("""select distinct refusal from topology_estimate where workload_id = 'toy-demand'
                          and refusal like 'the demand%'""").fetchall() == [
        ("the demand needs a fleet of more than 10,000,000 GPUs (max_fleet_gpus)",)]


def test_speculative_decoding_is_priced_per_accepted_token(built):
    # verify 2 tokens per step, keep 1.5; the 1B drafter rides along, drafting through the
    # target's LM head (1e9 + 1000 vocab x 5000 hidden = 1.005e9 params per drafted token).
    # Memory: 20 GB + 2.002 GB weights + 0.24 GB KV per sequence <= 73.6 GB -> batch 192.
    # Step at b = 192: GEMMs max(2 x 1e10 x 384 / 5e14, 20e9 / 2e12) = 15.36 ms; KV 192 x 1500 x
    # 160 kB / 2e12 = 23.04 ms; drafter max(2 x 1.005e9 x 384 / 5e14, 2.01e9 / 2e12) = 1.54368 ms;
    # prefill 0.0408 s per prompt, one prompt per 1000 / 1.5 steps: 192 x 0.0408 / 666.67 = 11.75 ms
    step = 0.01536 + 0.02304 + 0.00154368 + 192 * 0.0408 / (1000 / 1.5)
    rate = 192 * 1.5 / step  # 5,571.2 accepted tokens/s
    row = best(built, "toy-demand-spec", "on_demand")
    assert row["tokens_per_s"] == pytest.approx(rate)
    assert row["token_unit"] == "accepted output tokens"
    # ceil(10,000 / 5,571.2) = 2 toy GPUs: 2 USD/h per 36 M accepted tokens, against 3 without drafting
    assert (row["fleet_gpus"], row["usd_per_mtok"]) == (2, pytest.approx(2 / 36))


def test_prefill_runs_apart_when_that_needs_fewer_gpus_for_the_demand(built):
    # Per step at batch b on one toy GPU: weights 10 ms, KV cache 1.2e-4 x b s, and colocated the
    # prefill of arriving prompts, 0.0408 s each, one per 1000 steps: 4.08e-5 x b s.
    # Colocated under 30 ms: b = 96 (128 takes 30.58 ms): 96 / 25.437 ms = 3,774.1 tokens/s,
    #   ceil(20,000 / 3,774.1) = 6 GPUs.
    # Disaggregated, decode only: b = 128 (192 takes 33.04 ms): 128 / 25.36 ms = 5,047.3 tokens/s,
    #   ceil(20,000 / 5,047.3) = 4 GPUs; prompts: 20 requests/s x 0.0408 s at 100% = 0.816 GPU
    #   -> 1 more. 5 GPUs beat 6.
    row = best(built, "toy-demand-tpot", "on_demand")
    assert row["tokens_per_s"] == pytest.approx(128 / (0.01 + 1.2e-4 * 128))
    assert "prefill disaggregated onto 1 GPU" in row["layout"]
    assert (row["deployments"], row["fleet_gpus"], row["instances"]) == (4, 5, 5)
    assert row["usd_per_hour"] == pytest.approx(5.0)
    assert row["usd_per_mtok"] == pytest.approx(5 / 72)
    # without the limit the colocated fleet is as small (3 GPUs either way), and it is kept
    assert "disaggregated" not in best(built, "toy-demand", "on_demand")["layout"]


def test_buying_states_the_utilisation_at_which_it_beats_renting(built):
    # owning one toy: 10,000 USD / (5 x 8760 h) + 1 kW x 0.1 USD/kWh = 0.32831 USD per hour of use
    # at the toy's 100% utilisation; renting it is 1 USD/h: buying wins above 32.8% busy
    owned = best(built, "toy-demand", "owned")
    assert owned["break_even_utilization"] == pytest.approx(10000 / (5 * 8760) + 0.1)
    on_demand = best(built, "toy-demand", "on_demand")
    assert owned["cost_vs_on_demand"] == pytest.approx(owned["usd_total"] / on_demand["usd_total"])


def test_break_even_does_not_depend_on_the_utilisation_assumed(own):
    # at 50% utilisation an owned hour of use costs twice as much; the break-even stays put
    own.execute("update assumption set value = 0.5 where name = 'ownership_utilization'")
    rebuild_estimates(own, "decide", RUN.run_date)
    owned = best(own, "toy-demand", "owned")
    assert owned["usd_per_hour"] == pytest.approx(3 * 2 * (10000 / (5 * 8760) + 0.1))
    assert owned["break_even_utilization"] == pytest.approx(10000 / (5 * 8760) + 0.1)


def test_spot_is_its_own_basis_and_a_training_job_on_it_pays_for_restarts(built):
    pretrain_on_demand, pretrain_spot = (best(built, "toy-pretrain", p) for p in ("on_demand", "spot"))
    overhead = 0.10  # spot_restart_overhead of the toy catalog
    assert pretrain_spot["time_to_finish_h"] == pytest.approx(pretrain_on_demand["time_to_finish_h"] * (1 + overhead))
    assert pretrain_spot["usd_total"] == pytest.approx(0.4 * pretrain_spot["time_to_finish_h"])
    assert "interruptible" in pretrain_spot["basis_note"]
    decisions = built.execute(
        "select choice, pricing from decision where workload_id = 'toy-pretrain' order by all"
    ).fetchall()
    # every choice is on one basis; none is "the cheapest of anything"
    assert ("rent spot", "spot") in decisions and ("rent on-demand", "on_demand") in decisions
    assert {p for _, p in decisions} <= {"on_demand", "spot", "owned", "api"}


def test_an_instance_smaller_than_a_node_cannot_carry_a_multi_node_layout(built):
    # toy-ws-4 trains over its 4 GPUs as one PCIe domain; four single-GPU VMs cannot realise
    # that, while four one-GPU serving replicas need no link between them
    def rows(kind_test: str) -> int:
        return built.execute(
            f"""select count(*) from estimate where platform_id = 'toy-ws-4' and n_gpus = 4 and gpus_per_instance = 1
                and {kind_test}"""
        ).fetchone()[0]

    assert rows("kind <> 'serving'") == 0
    assert rows("workload_id = 'toy-demand'") > 0


def test_a_topology_is_one_workload_platform_and_gpu_count(offline_data):
    """estimate_best groups the pairs by topology id on the strength of this (091_estimate_best.sql)."""
    [(rows, triples, kinds)] = query(
        offline_data, "select count(*), count(distinct (workload_id, platform_id, n_gpus)), count(distinct kind) "
                      "from topology_estimate")
    [(best, keys)] = query(
        offline_data, "select count(*), count(distinct (workload_id, platform_id, n_gpus, pricing)) from estimate_best")
    assert rows == triples > 1000 and kinds >= 3  # training, serving and role pipelines all in it
    assert best == keys > 0


def test_the_rebuild_counts_every_estimate_row(built):
    counts = rebuild_estimates(built, "again", RUN.run_date)
    assert counts["estimate"] == built.execute("select count(*) from estimate").fetchone()[0] > 0
