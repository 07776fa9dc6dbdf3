"""`gpucalc list`, `gpucalc prices` and the names people type, on the bundled night (2026-11-29).

The facts asserted are read by hand from the bundled catalog (sources/data/platform.csv, gpu.csv,
model.csv, workload.csv) and price snapshot (sources/data/price_snapshot.csv): the snapshot's
cheapest H100 quote is Verda's 1H100.80S.32V on spot at $0.8015 for one GPU, observed
2026-11-01, 28 days before the night.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.flows.cli_helpers import gpucalc

SNAPSHOT = Path(__file__).resolve().parents[2] / "sources" / "data" / "price_snapshot.csv"


def _snapshot() -> dict[tuple, dict]:
    with SNAPSHOT.open(newline="", encoding="utf-8") as file:
        return {(r["provider"], r["region"], r["instance_type"], r["pricing"]): r for r in csv.DictReader(file)}


def test_prices_h100_lists_the_snapshot_quotes_cheapest_per_gpu_hour_first(offline_data):
    result = gpucalc("prices", "H100", "--json", "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["gpu"] == "H100-SXM" and answer["night"] == "2026-11-29"
    assert answer["means"] == "H100 means H100-SXM: platform hgx-h100-8"
    quotes = answer["quotes"]
    # the fresh quotes first, then the stale ones (CoreWeave's two, read off its page 2026-09-20:
    # 42 days before the snapshot's date), each cheapest per GPU-hour first
    for stale in (False, True):
        per_gpu = [q["usd_per_gpu_hour"] for q in quotes if q["stale"] is stale]
        assert per_gpu == sorted(per_gpu)
    assert [q["stale"] for q in quotes] == sorted(q["stale"] for q in quotes)
    assert {(q["provider"], q["age_days"]) for q in quotes if q["stale"]} == {("coreweave", 70)}
    first = quotes[0]
    assert (first["provider"], first["instance_type"], first["pricing"], first["usd_per_gpu_hour"]) == (
        "verda", "1H100.80S.32V", "spot", 0.8015)
    assert (first["observed_at"], first["age_days"], first["origin"]) == ("2026-11-01", 28, "bundled snapshot")
    # every snapshot quote is the file's row, per GPU-hour = per instance-hour / GPUs per instance
    snapshot = _snapshot()
    bundled = [q for q in quotes if q["origin"] == "bundled snapshot"]
    assert len(bundled) == 35
    for quote in bundled:
        row = snapshot[(quote["provider"], quote["region"], quote["instance_type"], quote["pricing"])]
        assert quote["usd_per_gpu_hour"] == pytest.approx(
            float(row["usd_per_instance_hour"]) / float(row["gpus_per_instance"]), rel=1e-12)
    eight = next(q for q in quotes
                 if q["instance_type"] == "gpu-h100-sxm_8gpu-128vcpu-1600gb" and q["pricing"] == "spot")
    assert (eight["usd_per_instance_hour"], eight["gpus_per_instance"], eight["usd_per_gpu_hour"]) == (10.0, 8.0, 1.25)
    # owning the platform built from it is priced too, on its own basis
    owned = [q for q in quotes if q["pricing"] == "owned"]
    assert [(q["provider"], q["origin"], q["gpus_per_instance"]) for q in owned] == [
        ("self-hosted", "ownership model", 8.0)]


def test_prices_prints_a_table_and_says_which_accelerator_the_name_means(offline_data):
    result = gpucalc("prices", "h100", "--data-dir", str(offline_data), env={"COLUMNS": ""})  # a pipe: whole
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == "h100 means H100-SXM: platform hgx-h100-8"
    lines = result.stdout.splitlines()
    assert lines[0] == ("H100-SXM (H100 SXM5 80GB): 36 quotes on every basis as of the night of 2026-11-29, "
                        "cheapest per GPU-hour first; 2 stale (observed before the freshness window: listed last, "
                        "ranked nowhere); the bundled snapshot's quotes are judged as of its date, 2026-11-01")
    # the market above the quotes, from the snapshot by hand: on demand 22 fresh quotes from $1.87 (vast) to
    # Azure's 127.816 / 8 = $15.977, the median the mean of the 11th and 12th, (5.95 + 6.88) / 2 = 6.415;
    # on spot 11 quotes, the 6th AWS's $2.4066; CoreWeave's page reads stale on each
    assert lines[1] == ("market, on_demand: $1.87 (vast) to $15.98 (azure), median $6.42: 8.54x spread, 22 quotes, "
                        "10 providers; 1 stale quote left out (coreweave)")
    assert lines[2] == ("market, spot: $0.80 (verda) to $3.52 (gcp), median $2.41: 4.39x spread, 11 quotes, "
                        "4 providers; 1 stale quote left out (coreweave)")
    assert lines[3].split() == ["provider", "instance", "type", "GPUs", "$/GPU-h", "$/instance-h", "basis",
                                "region", "observed", "age", "(d)", "source"]
    assert lines[5].split() == ["verda", "1H100.80S.32V", "1", "0.801", "0.801", "spot", "FIN-02", "2026-11-01",
                                "28", "bundled", "snapshot"]


def test_prices_on_one_basis_keeps_to_it(offline_data):
    result = gpucalc("prices", "H100 SXM", "--pricing", "on_demand", "--json", "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    quotes = json.loads(result.stdout)["quotes"]
    assert {q["pricing"] for q in quotes} == {"on_demand"}
    assert (quotes[0]["provider"], quotes[0]["instance_type"], quotes[0]["usd_per_gpu_hour"]) == (
        "vast", "1x-H100_SXM-32-65536", 1.87)
    refused = gpucalc("prices", "H100", "--pricing", "cheapest", "--data-dir", str(offline_data))
    assert refused.exit_code == 2 and "pricing 'cheapest'" in refused.output


def test_list_platforms_names_each_with_its_systems_and_how_it_is_sold(offline_data):
    text = gpucalc("list", "platforms", "--data-dir", str(offline_data))
    assert text.exit_code == 0, text.output
    rows = {line.split()[0]: line for line in text.stdout.splitlines()[2:]}
    assert {"hgx-b200-8", "gb200-nvl72"} <= rows.keys()
    assert rows["gb200-nvl72"].split()[1:6] == ["GB200", "72", "72", "GPUs,", "nvlink-switch"]
    result = gpucalc("list", "platforms", "--json", "--data-dir", str(offline_data))
    platforms = {p["platform_id"]: p for p in json.loads(result.stdout)}
    facts = {k: (p["gpu_id"], p["gpus_per_node"], p["scaleup_domain_gpus"], p["sold_by"])
             for k, p in platforms.items() if k in ("hgx-b200-8", "gb200-nvl72", "tpu-v5p-6144", "ws-rtxpro6000-4")}
    assert facts == {"hgx-b200-8": ("B200", 8, 8, "server"), "gb200-nvl72": ("GB200", 72, 72, "rack"),
                     "tpu-v5p-6144": ("TPU-v5p", 6144, 6144, "not sold"),
                     "ws-rtxpro6000-4": ("RTX-PRO-6000-WS", 4, 4, "workstation")}
    assert platforms["hgx-h100-8"]["what"] == ("8 x H100-SXM per server, scale-up 8 GPUs over nvlink-switch, "
                                               "sold by the server, $340,000")


def test_list_gpus_models_and_workloads_say_what_each_is(offline_data):
    def listed(kind: str, key: str) -> dict[str, dict]:
        result = gpucalc("list", kind, "--json", "--data-dir", str(offline_data))
        assert result.exit_code == 0, result.output
        return {row[key]: row for row in json.loads(result.stdout)}

    h100 = listed("gpus", "gpu_id")["H100-SXM"]
    assert (h100["vendor"], h100["memory_gb"], h100["bf16_tflops"], h100["fp8_tflops"], h100["platforms"]) == (
        "NVIDIA", 80.0, 989.0, 1979.0, "hgx-h100-8")
    assert h100["what"] == "80 GB HBM3; dense TFLOPS 989 BF16, 1,979 FP8"
    models = listed("models", "model_id")
    assert (models["deepseek-r1"]["params_total_b"], models["deepseek-r1"]["params_active_b"]) == (671.0, 37.0)
    assert models["deepseek-r1"]["what"].startswith("MoE, 256 experts (8 active), 61 layers")
    assert models["llama2-70b"]["what"] == "dense, 80 layers, 8 KV heads for 64 query heads"
    workloads = listed("workloads", "workload_id")
    assert workloads["llama2-70b-chat"]["what"] == (
        "Server (TTFT 2 s, TPOT 50 ms), 1,024 in / 512 out tokens, at 5,000 output tokens/s")
    assert (workloads["dflash-qwen36-27b"]["kind"], workloads["dflash-qwen36-27b"]["epochs"]) == ("role_pipeline", 6.0)
    assert "x 6 epochs" in workloads["dflash-qwen36-27b"]["what"]


def test_a_narrow_terminal_gets_a_table_that_fits_and_is_told_what_was_left_out(offline_data):
    result = gpucalc("list", "workloads", "--data-dir", str(offline_data), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[-1].startswith("(left out for the terminal's width: name")
    whole = gpucalc("list", "workloads", "--data-dir", str(offline_data), env={"COLUMNS": ""})  # a pipe: whole cells
    assert any("MLPerf Inference Llama-2-70B Offline (24576 samples)" in line for line in whole.stdout.splitlines())


@pytest.mark.parametrize(("typed", "gpu", "platform"), [
    ("H100", "H100-SXM", "hgx-h100-8"), ("h100", "H100-SXM", "hgx-h100-8"), ("H100 SXM", "H100-SXM", "hgx-h100-8"),
    ("B200", "B200", "hgx-b200-8"), ("GB200", "GB200", "gb200-nvl72"), ("MI300X", "MI300X", "mi300x-8"),
    ("hgx-b200-8", "B200", "hgx-b200-8"),
])
def test_names_people_type_mean_one_accelerator_and_its_platforms(offline_data, typed, gpu, platform):
    from warehouse.questions.names import meaning
    from warehouse.store.reader import connect_reader

    con = connect_reader(str(offline_data / "warehouse.duckdb"))
    try:
        meant = meaning(con, typed)
    finally:
        con.close()
    assert (meant.gpu_id, meant.platform_ids) == (gpu, (platform,))


def test_platforms_h100_resolves_to_hgx_h100_8_and_says_so(offline_data):
    result = gpucalc("compare", "llama2-70b-chat", "--platforms", "H100", "--pricing", "on_demand", "--json",
                     "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == "H100 means H100-SXM: platform hgx-h100-8"
    choices = json.loads(result.stdout)["choices"]
    assert {c["platform_id"] for c in choices if c["choice"] != "managed API"} == {"hgx-h100-8"}
    exact = gpucalc("compare", "llama2-70b-chat", "--platforms", "hgx-h100-8", "--pricing", "on_demand", "--json",
                    "--data-dir", str(offline_data))
    assert exact.exit_code == 0 and exact.stderr == ""  # an exact platform id is taken as it is, silently
    assert json.loads(exact.stdout)["choices"] == choices


@pytest.mark.parametrize(("args", "says"), [
    (["prices", "H1000"], "prices: 'H1000' is no accelerator or platform gpucalc knows; closest: "),
    (["compare", "llama2-70b-chat", "--platforms", "hgx-b200-8,H1000"], "compare: 'H1000' is no accelerator"),
    (["prices", "A100"], "prices: 'A100' could be A100-PCIe-40GB, A100-PCIe-80GB, A100-SXM-40GB or A100-SXM-80GB"),
    (["compare", "llama2-70b-chat", "--platforms", "A10G"], "compare: no platform in the catalog is built from A10G"),
])
def test_an_unknown_or_ambiguous_name_is_one_sentence_with_the_closest_ids(offline_data, args, says):
    result = gpucalc(*args, "--data-dir", str(offline_data))
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith(says)
    if any("H1000" in arg for arg in args):
        assert "H100-SXM" in result.stderr and "hgx-h100-8" in result.stderr


@pytest.mark.parametrize("args", [["list", "platforms"], ["prices", "H100"]])
def test_before_the_first_run_it_says_so_with_the_hint(tmp_path, args):
    result = gpucalc(*args, "--data-dir", str(tmp_path / "none"))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: no warehouse at {tmp_path / 'none' / 'warehouse.duckdb'}: run `gpucalc run` first",
        "hint: run `gpucalc run --offline` (or point --data-dir at a data directory)"]
    assert not (tmp_path / "none").exists()
