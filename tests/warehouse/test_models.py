"""The SQL models on a toy catalog, against numbers worked out by hand in the comments."""

from datetime import date

import polars as pl
import pytest

from tests.flows.cli_helpers import query
from tests.warehouse.toy_catalog import toy_catalog
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference
from warehouse.store import db

RUN_DATE = date(2026, 11, 29)


def _built(con):
    load_reference(con, toy_catalog(), RunContext.new("toy", RUN_DATE))
    rebuild_estimates(con, "toy", RUN_DATE)
    return con


@pytest.fixture(scope="module")
def built():
    """The toy warehouse, built once for the tests that only read it (a rebuild is ~0.7 s)."""
    con = db.connect(":memory:")
    yield _built(con)
    con.close()


def row(con, sql, params=()):
    result = con.execute(sql, list(params)).pl()
    assert result.height == 1, result
    return result.to_dicts()[0]


def test_pretraining_step_on_one_gpu(built):
    # FLOPs/token = 6 * 1e9 + 6 * 10 layers * 8 heads * 125 dims * 1000 tokens = 6.06e9
    # step = 8 seqs x 1000 tokens = 8000 tokens -> 4.848e13 FLOP at 1000 TF x 0.5 = 0.09696 s
    # memory = (3 passes x 8 micro-batches x 2 GB weights + 16 GB optimizer) / 2 TB/s = 0.032 s
    r = row(
        built,
        "select * from topology_training where workload_id = 'toy-pretrain' "
        "and platform_id = 'toy-1' and recompute = 'selective' and sharding = 'zero1'",
    )
    assert r["t_compute_s"] == pytest.approx(0.09696)
    assert r["t_memory_s"] == pytest.approx(0.032)
    assert r["bottleneck"] == "compute"
    assert r["tokens_per_s"] == pytest.approx(8000 / 0.09696)
    # weights+grads 4 GB + optimizer 12 GB + activations 34 x 1000 x 1000 x 10 layers = 0.34 GB
    assert r["mem_per_gpu_gb"] == pytest.approx(16.34)
    assert r["fits"]


def test_a_training_step_pays_its_fixed_cost_whatever_its_tokens(con):
    """The step above with 50 ms of optimizer, synchronisation and launches per step
    (`train_step_fixed_s`): 0.09696 + 0.05 s, counted with the exposed communication."""
    catalog = toy_catalog()
    catalog["assumption"] = catalog["assumption"].with_columns(
        pl.when(pl.col("name") == "train_step_fixed_s").then(0.05).otherwise(pl.col("value")).alias("value"))
    load_reference(con, catalog, RunContext.new("toy", RUN_DATE))
    rebuild_estimates(con, "toy", RUN_DATE)
    r = row(con, "select * from topology_training where workload_id = 'toy-pretrain' "
                 "and platform_id = 'toy-1' and recompute = 'selective' and sharding = 'zero1'")
    assert r["t_compute_s"] == pytest.approx(0.09696)
    assert r["t_comm_s"] == pytest.approx(0.05)
    assert r["tokens_per_s"] == pytest.approx(8000 / (0.09696 + 0.05))


def test_lora_skips_frozen_weight_gradients_and_optimizer_state(built):
    # FLOPs/token = 4 * 1e9 + 6e7 = 4.06e9 -> 8000 tokens x 4.06e9 / 5e14 = 0.06496 s
    # memory traffic: frozen weights read in forward and data-gradient passes only, 2 x 8 x 2 GB,
    # + 16 B x 0.065% trainable (MLPerf's rank-16 attention adapters) x 1e9 = 32.0104 GB / 2 TB/s
    r = row(built, "select * from topology_training where workload_id = 'toy-lora' "
                   "and platform_id = 'toy-1' and recompute = 'selective' and sharding = 'zero1'")
    assert r["t_compute_s"] == pytest.approx(0.06496)
    assert r["t_memory_s"] == pytest.approx(32.0104e9 / 2e12)
    # frozen bf16 weights 2 GB + optimizer for 0.065% trainable (12 B x 6.5e5) + activations 0.34 GB
    assert r["mem_per_gpu_gb"] == pytest.approx(2 + 0.0078 + 0.34)


def test_only_zero1_with_selective_recompute_is_kept_when_it_fits(built):
    # 4 GPUs, dp 4: weights+grads 4 GB + optimizer 12 GB / 4 + activations 0.34 GB fits 73.6 GB;
    # full recompute and FSDP only buy memory at a cost in time, so they are not enumerated
    variants = built.execute(
        """select recompute, sharding, mem_per_gpu_gb from topology_training where workload_id = 'toy-pretrain'
           and platform_id = 'toy-ws-4' and n_gpus = 4 and tp = 1 and pp = 1"""
    ).fetchall()
    assert variants == [("selective", "zero1", pytest.approx(4 + 3 + 0.34))]


@pytest.fixture
def small_memory(con):
    # 6 GB per GPU: 92% of it, 5.52 GB, holds FSDP (4.74 GB) but not ZeRO-1 (7.34 GB selective,
    # 7.02 GB with full recompute: 4 + 3 + 2 x 1000 x 1000 x 10 layers / 1e9)
    catalog = toy_catalog()
    catalog["gpu"] = catalog["gpu"].with_columns(pl.lit(6.0).alias("memory_usable_gb"))
    load_reference(con, catalog, RunContext.new("toy", RUN_DATE))
    rebuild_estimates(con, "toy", RUN_DATE)
    return con


def test_fsdp_shards_everything_and_gathers_the_weights(small_memory):
    # 4 GPUs, dp 4 over PCIe through the host (64 GB/s both ways -> 32 GB/s, link efficiency 1)
    variants = small_memory.execute(
        """select recompute, sharding, fits from topology_training where workload_id = 'toy-pretrain'
           and platform_id = 'toy-ws-4' and n_gpus = 4 and tp = 1 and pp = 1 order by all"""
    ).fetchall()
    # selective + FSDP fits, so full recompute with FSDP is never needed
    assert variants == [("full", "zero1", False), ("selective", "fsdp", True), ("selective", "zero1", False)]
    r = row(small_memory, "select * from topology_training where workload_id = 'toy-pretrain' and platform_id = "
                          "'toy-ws-4' and n_gpus = 4 and tp = 1 and pp = 1 and sharding = 'fsdp'")
    # weights+grads 4 GB / 4 + two gathered layers 2 x 0.1B x 2 B + optimizer 12 GB / 4 + activations 0.34 GB
    assert r["mem_per_gpu_gb"] == pytest.approx(1 + 0.4 + 3 + 0.34)
    # all-gather 2 GB of weights twice and reduce-scatter 2 GB of grads: 3 x 3/4 x 2e9 / 32e9 s
    gathers = 3 * 0.75 * 2e9 / 32e9
    compute = 8000 * 6.06e9 / (4 * 1000e12 * 0.5)  # 0.02424 s; half the backward hides comm
    assert r["t_comm_s"] == pytest.approx(gathers - 0.5 * compute)


def test_pretraining_estimate_time_and_cost(built):
    est = row(built, "select * from topology_estimate where workload_id = 'toy-pretrain' and platform_id = 'toy-1'")
    tokens_per_s = 8000 / 0.09696
    assert est["confidence"] == "default"  # no benchmark to calibrate on
    assert est["tokens_per_s"] == pytest.approx(tokens_per_s)
    assert est["time_to_finish_h"] == pytest.approx(8e9 / tokens_per_s / 3600)
    # owned: 10,000 USD / (5 x 8760 h) + 1 kW x 0.1 USD/kWh, at full utilisation and PUE 1
    owned = row(
        built,
        "select * from estimate where workload_id = 'toy-pretrain' and pricing = 'owned' and platform_id = 'toy-1'",
    )
    usd_per_hour = 10000 / (5 * 8760) + 0.1
    assert owned["usd_per_hour"] == pytest.approx(usd_per_hour)
    assert owned["usd_total"] == pytest.approx(usd_per_hour * 8e9 / tokens_per_s / 3600)


def test_latency_limited_serving_picks_the_largest_batch_that_meets_tpot(built):
    # decode step at batch b, op by op: weight GEMMs max(2e10 b / 5e14, 20 GB / 2 TB/s) = 10 ms
    # for b < 250, plus attention reading b x 1500 ctx x 160 kB of KV: 1.2e-4 b s
    # prefill of 1000 tokens: (2e13 + 4e11) FLOP / 5e14 = 0.0408 s, spread over 1000 output tokens
    # step(b) = 0.01 + 1.2e-4 b + 4.08e-5 b; TPOT 30 ms -> b <= 124.4 -> grid batch 96
    # (the published pass: no benchmark calibrates toy-1, so its factor is 1; the first pass
    # times only the platforms of measured cases)
    r = row(built, "select * from topology_serving_calibrated "
                   "where workload_id = 'toy-server' and platform_id = 'toy-1'")
    assert r["batch"] == 96
    step = 0.01 + 1.608e-4 * 96
    assert r["t_step_s"] == pytest.approx(step)
    assert r["tokens_per_s"] == pytest.approx(96 / step)
    # per op: weights 20 GB / 2 TB/s = 10 ms < KV 96 x 0.24 GB / 2 TB/s = 11.5 ms
    assert r["bottleneck"] == "memory bandwidth (KV cache)"


def test_offline_serving_is_limited_by_memory(built):
    # no latency limit: the largest batch whose KV fits 73.6 GB: (73.6 - 20) / 0.24 = 223 -> grid 192
    r = row(built, "select * from topology_serving_calibrated "
                   "where workload_id = 'toy-offline' and platform_id = 'toy-1'")
    assert r["batch"] == 192
    assert r["mem_per_gpu_gb"] == pytest.approx(20 + 192 * 0.24)
    assert r["tokens_per_s"] == pytest.approx(192 / (0.01 + 1.608e-4 * 192))


def test_role_pipeline_enumerates_every_split_and_keeps_the_slowest_stage(built):
    # per GPU: producer 5e14 x 0.5 / 5e10 FLOP = ... 1000 TF x 0.5 / 50 GFLOP = 10,000 tok/s,
    # consumer 1000 TF x 0.5 / 10 GFLOP = 50,000 units/s, PCIe 32 GB/s / 50 kB = 640,000 tok/s
    splits = built.execute(
        "select producers, consumers, tokens_per_s, bottleneck from topology_role "
        "where workload_id = 'toy-pipeline' and platform_id = 'toy-ws-4' and n_gpus = 4 and placement = 'split' "
        "order by producers"
    ).fetchall()
    assert [(p, c) for p, c, _, _ in splits] == [(1, 3), (2, 2), (3, 1)]
    rates = {(p, c): (t, b) for p, c, t, b in splits}
    assert rates[(1, 3)][0] == pytest.approx(10_000)
    assert rates[(3, 1)][0] == pytest.approx(30_000)
    assert rates[(3, 1)][1] == "compute (target forward)"
    best = row(
        built,
        "select * from topology_estimate where workload_id = 'toy-pipeline' "
        "and platform_id = 'toy-ws-4' and n_gpus = 4",
    )
    # sharing every GPU (041_topology_role.sql) does better: 4 / (1/10,000 + 1/50,000) = 33,333
    assert (best["producers"], best["consumers"]) == (4, 4)


def test_managed_api_baseline_counts_the_input_tokens_too(own):
    own.execute(
        "insert into api_price values ('toy-10b', 'acme-api', 1.0, 2.0, '2026-11-01', 'hand-made', null)"
    )
    api = row(own, "select * from api_baseline where workload_id = 'toy-offline'")
    # 2.00 per M output + 1.00 per M input x 1000 input / 1000 output tokens
    assert api["api_usd_per_mtok_output"] == pytest.approx(3.0)


def test_a_model_that_does_not_fit_is_refused_with_the_reason(own):
    # 10B serving weights alone are 20 GB; shrink the GPU so nothing fits and check the refusal
    own.execute("update gpu set memory_usable_gb = 10")
    rebuild_estimates(own, "toy", RUN_DATE)
    r = row(own, "select * from topology_estimate where workload_id = 'toy-offline' and platform_id = 'toy-1'")
    assert not r["fits"]
    assert r["refusal"].startswith("needs 20.2 GB per GPU")
    priced = "select count(*) from estimate where workload_id = 'toy-offline' and platform_id = ?"
    assert own.execute(priced, ["toy-1"]).fetchone()[0] == 0
    # four of them hold it with tensor parallelism: 20 GB / 4 + KV
    assert own.execute(priced, ["toy-ws-4"]).fetchone()[0] > 0


def test_equal_training_times_go_to_the_layout_with_the_least_parallelism(offline_data):
    """Llama-3.1-8B pretraining on 8 B200s at batch 64 is compute-bound: tp1..tp8, with or without
    context parallelism, run at the same rate (their collectives hide under the GEMMs). The
    published layout is the plainest one, not the first by name ('tp1 cp2 ...' sorts first)."""
    key = ("workload_id = 'llama31-8b-pretrain' and platform_id = 'hgx-b200-8' and n_gpus = 8 "
           "and global_batch = 64 and dtype = 'fp8'")
    [tied] = query(offline_data, f"""select count(*), count(distinct tokens_per_s) from topology_training
                                     where {key} and fits and recompute = 'selective' and sharding = 'zero1'
                                       and pp = 1""")
    chosen = query(offline_data, f"select layout from topology_option where {key}")
    assert tied[0] >= 5 and tied[1] == 1  # tp1, tp2, tp4, tp8, and cp2 beside them: one rate
    assert chosen == [("tp1 pp1 dp8, batch 64, selective recompute",)]


def test_equal_training_times_take_zero1_before_fsdp_then_the_least_parallelism(offline_data):
    """Llama-3.1-405B pretraining on 1,024 MI355X at batch 1,152: 'tp8 cp2 pp1 dp64' with ZeRO-1
    and 'tp8 pp1 dp128' with FSDP run at the same rate. FSDP only buys memory (more traffic, here
    hidden), so the ZeRO-1 layout is published although it has context parallelism."""
    key = ("workload_id = 'llama31-405b-pretrain' and platform_id = 'mi355x-8' and n_gpus = 1024 "
           "and global_batch = 1152 and dtype = 'fp8'")
    rates = dict(query(offline_data, f"""select training_layout(tp, cp, pp, vp, dp, global_batch, recompute, sharding),
                                                tokens_per_s
                                         from topology_training where {key} and fits"""))
    [(chosen,)] = query(offline_data, f"select layout from topology_option where {key}")
    zero1 = "tp8 cp2 pp1 dp64, batch 1152, selective recompute"
    fsdp = "tp8 pp1 dp128, batch 1152, selective recompute, fsdp"
    assert rates[zero1] == rates[fsdp] == max(rates.values())
    assert chosen == zero1


def test_each_training_winner_is_its_layouts_row_bottleneck_included(offline_data):
    """training_option ranks on numbers and names the winners' bottleneck itself
    (training_bottleneck): every row it publishes is its layout's row of topology_training, on
    every column the two share."""
    shared = [c for (c,) in query(
        offline_data, """select column_name from information_schema.columns where table_name = 'training_option'
                         and column_name in (select column_name from information_schema.columns
                                             where table_name = 'topology_training')""")]
    columns = ", ".join(shared)
    ((published, unmatched),) = query(offline_data, f"""
        select (select count(*) from training_option),
               (select count(*) from (select {columns} from training_option
                                      except all select {columns} from topology_training))""")
    bottlenecks = {b for (b,) in query(offline_data, "select distinct bottleneck from training_option")}
    assert "bottleneck" in shared and len(shared) == 31
    assert published > 1000 and unmatched == 0
    assert len(bottlenecks) >= 3  # the winners are told apart, not given one name
