"""`gpucalc compare` and `gpucalc serve` on the bundled night, as a user types them.

The numbers behind each choice are worked by hand in tests/warehouse/test_decisions.py; here
the commands: every choice on one stated price basis, a demand given as requests per second
is the same job as its tokens per second, and bad input is one sentence with exit code 2.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.flows.cli_helpers import gpucalc

BASES = {"on_demand", "spot", "reserved_1y", "reserved_3y", "owned"}
LLAMA = ["serve", "--model", "llama2-70b", "--input-len", "1024", "--output-len", "500", "--ttft-ms", "2000",
         "--tpot-ms", "50"]
BOTH = ("compare", "deepseek-r1-mtp", "--platforms", "gb200-nvl72,hgx-b200-8")


@pytest.fixture(scope="module")
def both_as_json(offline_data):
    """`compare deepseek-r1-mtp --platforms gb200-nvl72,hgx-b200-8 --json` on the bundled night: a
    read-only answer that two tests check, each its own side of it, so it is asked once."""
    return gpucalc(*BOTH, "--json", "--data-dir", str(offline_data))


def test_compare_sets_two_platforms_side_by_side_each_choice_on_one_basis(both_as_json):
    result = both_as_json
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    choices = answer["choices"]
    assert {c["platform_id"] for c in choices if c["platform_id"]} == {"gb200-nvl72", "hgx-b200-8"}
    rented = [c for c in choices if c["choice"] != "managed API"]
    assert rented and all(c["pricing"] in BASES for c in rented)
    # cost per *accepted* token: the fleet's dollars per hour over the tokens it keeps
    for c in rented:
        assert c["token_unit"].startswith("accepted")
        fleet_tokens_per_hour = answer["workload"]["demand_tokens_per_s"] * 3600
        assert c["usd_per_mtok"] == pytest.approx(c["usd_per_hour"] / fleet_tokens_per_hour * 1e6, rel=1e-9)
    # the buy line says when owning beats renting the same layout on demand
    bought = [c for c in rented if c["pricing"] == "owned" and c["platform_id"] == "hgx-b200-8"]
    assert bought and 0 < bought[0]["break_even_utilization"] < 1


def test_compare_sets_the_platforms_side_by_side_at_the_same_provider(offline_data):
    """Seed 003 like for like (issue 35, item 1). By hand from the snapshot: OCI prices both, its
    BM.GPU.GB200.4 at $64.00 for 4 GPUs = $16.00 and its BM.GPU.B200.8 at $112.00 for 8 = $14.00 per
    GPU-hour; OCI is the only fresh GB200 quote (CoreWeave's page read is stale), while nine B200
    quotes from six providers run from Vast's $4.705 to AWS's 113.9328 / 8 = $14.2416."""
    result = gpucalc("compare", "deepseek-r1-mtp", "--platforms", "gb200-nvl72,hgx-b200-8", "--pricing", "on_demand",
                     "--json", "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    like = answer["like_for_like"]
    gb200, b200 = like["markets"]
    assert (gb200["platform_id"], gb200["quotes"], gb200["single_quote"], gb200["cheapest_provider"],
            gb200["cheapest_usd_per_gpu_hour"], gb200["stale_providers"]) == (
        "gb200-nvl72", 1, True, "oci", 16.0, "coreweave")
    assert (b200["quotes"], b200["providers"], b200["median_usd_per_gpu_hour"]) == (9, 6, 6.69)
    assert b200["spread"] == pytest.approx(14.2416 / 4.705)
    (oci,) = like["same_provider"]
    assert (oci["provider"], oci["a_usd_per_gpu_hour"], oci["b_usd_per_gpu_hour"]) == ("oci", 16.0, 14.0)
    assert oci["price_ratio"] == pytest.approx(16 / 14)
    # each platform's chosen fleet priced at OCI's GPU-hour: its cost scaled by OCI's price over its own
    chosen = {c["platform_id"]: c for c in answer["choices"] if c["pricing"] == "on_demand"}
    at_oci = {p: chosen[p]["usd_per_mtok"] * price / chosen[p]["usd_per_gpu_hour"]
              for p, price in (("gb200-nvl72", 16.0), ("hgx-b200-8", 14.0))}
    assert (oci["a_usd_per_unit"], oci["b_usd_per_unit"]) == (
        pytest.approx(at_oci["gb200-nvl72"]), pytest.approx(at_oci["hgx-b200-8"]))
    assert oci["cost_ratio"] == pytest.approx(at_oci["gb200-nvl72"] / at_oci["hgx-b200-8"])
    text = gpucalc("compare", "deepseek-r1-mtp", "--platforms", "gb200-nvl72,hgx-b200-8", "--pricing", "on_demand",
                   "--data-dir", str(offline_data))
    assert "Careful: gb200-nvl72 on on_demand rests on a single quote (oci's list price), not a market." in text.output
    assert "on_demand, oci: $16.00 against $14.00 per GPU-hour (1.14x)" in " ".join(text.output.split())


def test_a_demand_in_requests_per_second_is_the_same_job(offline_data):
    by_requests = gpucalc(*LLAMA, "--requests-per-s", "10", "--json", "--data-dir", str(offline_data))
    by_tokens = gpucalc(*LLAMA, "--demand", "5000", "--json", "--data-dir", str(offline_data))
    assert by_requests.exit_code == 0 and by_tokens.exit_code == 0, by_requests.output
    assert json.loads(by_requests.output)["choices"] == json.loads(by_tokens.output)["choices"]
    text = gpucalc(*LLAMA, "--demand", "5000", "--pricing", "on_demand", "--data-dir", str(offline_data))
    assert "Rent on-demand (cheapest)" in text.output and "per million output tokens" in text.output
    assert "[spot]" not in text.output and "[owned]" not in text.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--demand", "5000", "--requests-per-s", "10"], "give the demand once"),
        ([], "give the demand once"),
        (["--demand", "0"], "--demand must be a finite number above zero, got 0"),
        (["--demand", "inf"], "--demand must be a finite number above zero, got inf"),
        (["--demand", "5000", "--dtype", "int3"], "--dtype 'int3': use fp4, fp8 or bf16"),
        (["--demand", "5000", "--input-len", "4000"],  # Llama-2's 4,096-token context (its config.json)
         "llama2-70b takes at most 4,096 tokens of prompt and output (max_context), and --input-len 4000 + "
         "--output-len 500 is 4,500"),
        (["--demand", "5000", "--draft-tokens", "1"], "speculative decoding takes all three: --draft-model M"),
        (["--demand", "5000", "--draft-model", "nope", "--draft-tokens", "1", "--accepted-per-step", "1.5"],
         "--draft-model 'nope' is not in the catalog"),
        (["--demand", "5000", "--draft-model", "deepseek-r1-mtp-module", "--draft-tokens", "0",
          "--accepted-per-step", "1"], "--draft-tokens must be a whole number from 1 to 64, got 0"),
        (["--demand", "5000", "--draft-model", "deepseek-r1-mtp-module", "--draft-tokens", "1",
          "--accepted-per-step", "2.5"], "--accepted-per-step counts the verified token too: from 1 to "
         "--draft-tokens + 1 = 2, got 2.5"),
    ],
)
def test_serve_refuses_what_it_cannot_answer_in_one_sentence(offline_data, args, says):
    result = gpucalc(*LLAMA, *args, "--data-dir", str(offline_data))
    assert result.exit_code == 2 and says in result.output, result.output
    assert "Traceback" not in result.output


def test_a_demand_no_fleet_can_serve_says_why_even_on_an_older_warehouse(offline_copy):
    """1e30 tokens/s overflowed the replica count's integer (a traceback). A warehouse written
    before max_fleet_gpus existed lacks it: the bundled value fills the gap in the private copy."""
    import duckdb

    with duckdb.connect(str(offline_copy / "warehouse.duckdb")) as con:
        con.execute("delete from assumption where name = 'max_fleet_gpus'")
    result = gpucalc(*LLAMA, "--demand", "1e30", "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    assert "demand 1e+30 output tokens/s" in result.output
    said = " ".join(result.output.split())
    assert "No GPU fleet fits this job: the demand needs a fleet of more than 10,000,000 GPUs (max_fleet_gpus)" in said
    assert "Managed API" in result.output


def test_compare_says_a_benchmark_definition_is_not_a_job(offline_data):
    """It said 'No priced option fits this job', as if nothing could run Llama-2-70B Offline."""
    result = gpucalc("compare", "llama2-70b-offline", "--platforms", "hgx-b200-8", "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "llama2-70b-offline is a benchmark definition, not a job" in said
    assert "No priced option fits" not in said and "No GPU fleet fits" not in said


def test_every_json_fleet_is_the_fleet_its_text_row_says(offline_data, both_as_json):
    """Issue 35 item 6: the GB200 fleet is modelled at 64 GPUs (four 16-GPU replicas) and sized to
    the demand as one replica, 16 GPUs; its JSON n_gpus says 16, as its row does, and the 64 is
    named modelled_gpus. By hand: 4 trays of 4 GPUs; B200: 2 servers of 8."""
    text, as_json = gpucalc(*BOTH, "--data-dir", str(offline_data)), both_as_json
    assert text.exit_code == 0 and as_json.exit_code == 0, text.output
    said = [int(m) for m in re.findall(r"^    (\d+)(?: GPUs \(|x B200 \()", text.output, flags=re.M)]
    fleets = [c for c in json.loads(as_json.output)["choices"] if c["pricing"] != "api"]
    assert said == [c["n_gpus"] for c in fleets] == [16] * 5
    gb200 = fleets[0]
    assert (gb200["fleet"], gb200["modelled_gpus"], gb200["replicas"], gb200["gpus_per_replica"]) == (
        "16 GPUs (4 trays of one GB200 NVL72 rack)", 64, 1, 16)
    assert gb200["tokens_per_s"] == pytest.approx(gb200["modelled_tokens_per_s"] / 4)
    assert (fleets[2]["fleet"], fleets[2]["modelled_gpus"], fleets[2]["replicas"]) == (
        "16x B200 (2 HGX B200 servers)", 8, 2)


def test_serve_sweep_points_are_what_serve_answers_at_each_tpot(offline_data):
    """The interactivity curve (issue 35, item 3): each point is the plain `serve --tpot-ms 1000/rate`
    answer for the platform and basis, and the crossover is read off the points: the platform with the
    lower $/M at each rate, by hand from the table."""
    job = ["serve", "--model", "deepseek-r1", "--demand", "100000", "--input-len", "1024", "--output-len", "1024",
           "--platforms", "gb200-nvl72,hgx-b200-8", "--pricing", "on_demand", "--json", "--data-dir", str(offline_data)]
    answer = json.loads(gpucalc(*job, "--sweep").output)
    points = {(p["tokens_per_s_per_user"], p["platform_id"]): p for p in answer["points"]}
    assert answer["tokens_per_s_per_user"] == [10, 20, 35, 50, 75, 100, 125, 150]
    plain = json.loads(gpucalc(*job, "--tpot-ms", str(1000 / 75)).output)
    for choice in plain["choices"]:
        if choice["platform_id"]:
            point = points[(75, choice["platform_id"])]
            assert (point["usd_per_mtok"], point["tokens_per_s_per_gpu"], point["fleet_gpus"], point["layout"]) == (
                choice["usd_per_mtok"], pytest.approx(choice["tokens_per_s_per_gpu"]), choice["n_gpus"],
                choice["layout"])
    cheaper = ["gb200-nvl72" if points[(r, "gb200-nvl72")]["usd_per_mtok"] < points[(r, "hgx-b200-8")]["usd_per_mtok"]
               else "hgx-b200-8" for r in answer["tokens_per_s_per_user"]]
    switch = cheaper.index("gb200-nvl72")
    assert cheaper == ["hgx-b200-8"] * switch + ["gb200-nvl72"] * (8 - switch)  # one crossover on this night
    last_b200 = answer["tokens_per_s_per_user"][switch - 1]
    (at_chosen,) = [c for c in answer["crossovers"] if c["provider"] is None]
    assert at_chosen["text"] == (f"gb200-nvl72 is cheaper per token above {last_b200} tokens/s per user "
                                 f"(hgx-b200-8 at {last_b200} and below)")
    assert [c["provider"] for c in answer["crossovers"] if c["provider"]] == ["oci"]  # the one provider of both


def test_serve_drafts_as_a_workload_does_and_counts_accepted_tokens(offline_data):
    """DeepSeek-R1 with its MTP module (1 drafted, 1.92 kept per step) at a TPOT of 20 ms on HGX
    B200: each step keeps 1.92 tokens for about the cost of one, so the fleet serves more per GPU
    than without drafting, and its figures count accepted tokens."""
    ask = ("serve", "--model", "deepseek-r1", "--demand", "100000", "--input-len", "1024", "--output-len", "1024",
           "--tpot-ms", "20", "--platforms", "hgx-b200-8", "--pricing", "on_demand", "--json",
           "--data-dir", str(offline_data))
    plain = json.loads(gpucalc(*ask).stdout)
    result = gpucalc(*ask, "--draft-model", "deepseek-r1-mtp-module", "--draft-tokens", "1",
                     "--accepted-per-step", "1.92")
    assert result.exit_code == 0, result.output
    drafting = json.loads(result.stdout)
    job = drafting["workload"]
    assert (job["consumer_model_id"], job["spec_draft_len"], job["spec_accept_len"], job["token_unit"]) == (
        "deepseek-r1-mtp-module", 1, 1.92, "accepted output tokens")
    assert job["name"].endswith("with speculative decoding (deepseek-r1-mtp-module: 1 drafted, 1.92 accepted per step)")
    (fast,) = [c for c in drafting["choices"] if c["pricing"] == "on_demand"]
    (slow,) = [c for c in plain["choices"] if c["pricing"] == "on_demand"]
    assert fast["token_unit"] == "accepted output tokens"
    assert fast["tokens_per_s_per_gpu"] > slow["tokens_per_s_per_gpu"]
    assert fast["usd_per_mtok"] < slow["usd_per_mtok"]
