"""Issue 35 item 4 for `compare` and `serve`: each GPU choice's figures over its p90 error band,
and the demand below which the managed API is cheaper, worked by hand on small rows, then on
the bundled night through the command line, its text and its JSON saying the same."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

from reports.headline import workload_headline
from reports.markdown import escape
from tests.flows.cli_helpers import gpucalc
from warehouse.questions.decision_ranges import api_break_even, api_row, break_even_json, range_json
from warehouse.questions.plain_text import decision_text, fmt_approx, fmt_pct, fmt_usd

# $1.25 per million output tokens: 1.25e-6 x 3600 = $0.0045 an hour per token/s of demand
API = {"choice": "managed API", "pick": "cheapest", "pricing": "api", "provider": "toyapi", "platform_id": None,
       "usd_per_mtok": 1.25, "api_usd_per_mtok_output": 1.25, "api_observed_at": "2026-11-20"}
# two replicas of 8 GPUs on two 8-GPU instances at $44 each; modelled at 8 GPUs, 50,000 tokens/s
SERVING = {"choice": "rent on-demand", "pick": "cheapest", "pricing": "on_demand", "platform_id": "toy-8",
           "provider": "toycloud", "instance_type": "toy.8", "layout": "tp8", "n_gpus": 8, "fleet_gpus": 16,
           "unit_gpus": 8, "deployments": 2, "fleet_utilization": 0.8, "instances": 2.0, "usd_per_hour": 88.0,
           "usd_per_mtok": 100.0, "usd_total": 300.0, "time_to_finish_h": 3.0, "tokens_per_s": 50_000.0,
           "token_unit": "output tokens", "bottleneck": "compute", "confidence": "calibrated", "error_p50": 0.2,
           "error_p90": 0.25}
TRAINING = {"choice": "rent spot", "pick": "cheapest", "pricing": "spot", "platform_id": "toy-8",
            "provider": "toycloud", "instance_type": "toy.8", "layout": "tp8", "n_gpus": 8, "instances": 1.0,
            "usd_per_hour": 100.0, "usd_total": 1000.0, "time_to_finish_h": 10.0, "usd_per_mtok": 2.0,
            "tokens_per_s": 1000.0, "token_unit": "tokens", "bottleneck": "compute", "confidence": "calibrated",
            "error_p50": 0.2, "error_p90": 0.25}
DEMAND = {"kind": "serving", "demand_tokens_per_s": 60_000.0}


def test_a_serving_cost_spans_its_p90_band_in_words_and_json():
    # throughput x 1.25 and x 0.75: $100 per million becomes 100 / 1.25 = $80 and 100 / 0.75 = $133.33
    says = decision_text(SERVING, serving=True)[1]
    assert "$100 per million output tokens ($88.00/h); $80.00 to $133 within the ±25% p90 error band;" in says
    ranges = range_json(SERVING, paced=True)
    assert ranges["usd_per_mtok_low"] == pytest.approx(80.0)
    assert ranges["usd_per_mtok_high"] == pytest.approx(400 / 3)
    assert (ranges["usd_total_low"], ranges["usd_total_high"]) == (pytest.approx(240.0), pytest.approx(400.0))
    assert (ranges["tokens_per_s_low"], ranges["tokens_per_s_high"]) == (37_500.0, 62_500.0)
    # the demand sets the fleet's pace: a slower fleet grows, the job does not take longer
    assert ranges["time_to_finish_h_low"] == ranges["time_to_finish_h_high"] == 3.0


def test_a_job_run_to_its_end_spans_its_time_and_its_cost():
    # 10 h and $1,000 at 1.25x and 0.75x the throughput: 8 h to 13.3 h and $800 to $1,333
    says = decision_text(TRAINING, serving=False)[1]
    assert "[spot]: 10.0 h, $1,000; 8.0 h to 13.3 h and $800 to $1,333 within the ±25% p90 error band;" in says
    ranges = range_json(TRAINING, paced=False)
    assert (ranges["time_to_finish_h_low"], ranges["time_to_finish_h_high"]) == (8.0, pytest.approx(40 / 3))
    assert (ranges["usd_total_low"], ranges["usd_total_high"]) == (800.0, pytest.approx(4000 / 3))
    assert (ranges["usd_per_mtok_low"], ranges["usd_per_mtok_high"]) == (1.6, pytest.approx(8 / 3))


def test_no_band_no_range():
    row = dict(TRAINING, error_p50=None, error_p90=None, confidence="default")
    says = decision_text(row, serving=False)[1]
    assert "p90" not in says and "a wide guess" in says
    assert set(range_json(row, paced=False).values()) == {None}


def test_a_band_of_100_percent_or_more_has_no_upper_bound():
    # at ±120% the slowest throughput is below zero: $100 / 2.2 = $45.45 is the only bound
    row = dict(SERVING, error_p90=1.2)
    assert "($88.00/h); $45.45 or more within the ±120% p90 error band;" in decision_text(row, serving=True)[1]
    ranges = range_json(row, paced=True)
    assert ranges["usd_per_mtok_low"] == pytest.approx(100 / 2.2) and ranges["usd_per_mtok_high"] is None
    assert ranges["tokens_per_s_low"] == 0.0 and ranges["tokens_per_s_high"] == pytest.approx(110_000.0)
    training = decision_text(dict(TRAINING, error_p90=1.0), serving=False)[1]
    assert "10.0 h, $1,000; 5.0 h or more and $500 or more within the ±100% p90 error band;" in training


@pytest.mark.parametrize("row", [API, dict(SERVING, choice="measured run", pick="baseline", confidence="measured")])
def test_a_price_or_a_measurement_has_no_model_range(row):
    assert set(range_json(row, paced=True).values()) == {None}
    assert set(break_even_json(row, API).values()) == {None}


def test_the_api_is_cheaper_below_the_demand_its_price_pays_one_replica_at():
    # one replica: $88 / 2 instances x 1 = $44 an hour; 44 / 0.0045 = 9,777.8 tokens/s, under one
    # replica's 50,000 x 8 / 8 = 50,000 tokens/s
    assert api_break_even(SERVING, API) == pytest.approx(44 / 0.0045)
    assert break_even_json(SERVING, API) == {"api_break_even_tokens_per_s": pytest.approx(9777.78, rel=1e-5),
                                             "api_cheaper_at_any_demand": False}
    says = decision_text(SERVING, serving=True, api=API)[1]
    assert "the managed API ($1.25/M) is cheaper below 9,800 output tokens/s" in says


def test_one_replica_pays_the_whole_rack_it_shares():
    # three 16-GPU replicas of one owned 72-GPU rack at $180 an hour: one replica alone still
    # needs the rack, so 180 / 0.0045 = 40,000 tokens/s (not 60 / 0.0045); a replica serves
    # 400,000 x 16 / 64 = 100,000
    rack = dict(SERVING, choice="buy", pricing="owned", n_gpus=64, unit_gpus=16, deployments=3, instances=1.0,
                usd_per_hour=180.0, tokens_per_s=400_000.0)
    assert api_break_even(rack, API) == pytest.approx(40_000.0)


def test_the_api_is_cheaper_at_any_demand_where_a_full_replica_costs_more_per_token():
    # at $0.10 per million: 44 / 0.00036 = 122,222 tokens/s, more than a replica's 50,000
    cheap = dict(API, api_usd_per_mtok_output=0.10)
    assert api_break_even(SERVING, cheap) == math.inf
    assert break_even_json(SERVING, cheap) == {"api_break_even_tokens_per_s": None, "api_cheaper_at_any_demand": True}
    assert "the managed API ($0.10/M) is cheaper at any demand" in decision_text(SERVING, True, api=cheap)[1]


def test_only_a_job_with_a_demand_is_set_against_the_api():
    assert api_row(DEMAND, [SERVING, API]) is API
    assert api_row({"kind": "serving", "demand_tokens_per_s": None}, [SERVING, API]) is None
    assert api_row(DEMAND, [SERVING]) is None
    assert break_even_json(SERVING, None) == {"api_break_even_tokens_per_s": None, "api_cheaper_at_any_demand": None}
    assert "managed API" not in decision_text(SERVING, serving=True)[1]


def test_a_break_even_keeps_two_digits():
    assert (fmt_approx(9777.78), fmt_approx(55_694.8), fmt_approx(3.456), fmt_approx(96.0)) == (
        "9,800", "56,000", "3.5", "96")


def test_the_report_says_what_the_terminal_says():
    workload = {"kind": "serving", "demand_tokens_per_s": 60_000.0}
    lines = workload_headline(workload, pl.DataFrame(), pl.DataFrame([SERVING, API]))
    says = decision_text(SERVING, serving=True, api=API)[1]
    assert f"- **Rent on-demand (cheapest):** {escape(says)}" in lines


def _gpu_choices(output: str) -> tuple[list[dict], dict]:
    choices = json.loads(output)["choices"]
    api = next(c for c in choices if c["choice"] == "managed API")
    return [c for c in choices if c["choice"] not in ("managed API", "measured run")], api


@pytest.mark.parametrize("ask", [
    ("compare", "deepseek-r1-mtp", "--platforms", "gb200-nvl72,hgx-b200-8"),
    ("serve", "--model", "llama2-70b", "--demand", "5000", "--input-len", "1024", "--output-len", "500",
     "--ttft-ms", "2000", "--tpot-ms", "50"),
])
def test_on_the_bundled_night_the_text_and_the_json_agree(offline_data, ask):
    as_json = gpucalc(*ask, "--json", "--data-dir", str(offline_data))
    text = gpucalc(*ask, "--data-dir", str(offline_data))
    assert as_json.exit_code == 0 and text.exit_code == 0, as_json.output + text.output
    said = " ".join(text.output.split())
    fleets, api = _gpu_choices(as_json.output)
    assert fleets
    for c in fleets:
        error = c["error_p90"]
        if error is None:  # no band earned (MoE serving: no measured result of its class): no range
            assert {c[f"{f}_{end}"] for f in ("usd_per_mtok", "usd_total", "tokens_per_s")
                    for end in ("low", "high")} == {None}
        else:
            assert c["usd_per_mtok_low"] == pytest.approx(c["usd_per_mtok"] / (1 + error))
            assert c["usd_per_mtok_high"] == pytest.approx(c["usd_per_mtok"] / (1 - error))
            for figure in ("usd_per_mtok", "usd_total", "tokens_per_s"):
                assert c[f"{figure}_low"] <= c[figure] <= c[f"{figure}_high"], figure
            assert (f"{fmt_usd(c['usd_per_mtok_low'])} to {fmt_usd(c['usd_per_mtok_high'])} within the "
                    f"±{fmt_pct(error)} p90 error band") in said
        flip = c["api_break_even_tokens_per_s"]
        assert flip is not None and not c["api_cheaper_at_any_demand"]
        assert (f"the managed API ({fmt_usd(api['api_usd_per_mtok_output'])}/M) is cheaper below "
                f"{fmt_approx(flip)} {c['token_unit']}/s") in said
    assert said.count("is cheaper below") == len(fleets)


def test_the_bundled_b200_fleet_breaks_even_with_the_api_where_worked_by_hand(offline_data):
    """HGX B200 on demand at nebius: $88 an hour for two 8-GPU instances, one replica each, so one
    replica is $44 an hour; the API's $1.2768 per million pays that at 44 / (1.2768e-6 x 3600) =
    9,572.5 accepted output tokens/s, well under a replica's capacity."""
    result = gpucalc("compare", "deepseek-r1-mtp", "--platforms", "hgx-b200-8", "--pricing", "on_demand", "--json",
                     "--data-dir", str(offline_data))
    assert result.exit_code == 0, result.output
    (b200,), api = _gpu_choices(result.output)
    assert (b200["usd_per_hour"], b200["instances"], b200["replicas"], api["api_usd_per_mtok_output"]) == (
        88.0, 2.0, 2, pytest.approx(1.2768))
    assert b200["api_break_even_tokens_per_s"] == pytest.approx(44 / (1.2768e-6 * 3600))
    assert b200["api_break_even_tokens_per_s"] < b200["tokens_per_s"] / b200["replicas"]
    text = gpucalc("compare", "deepseek-r1-mtp", "--platforms", "hgx-b200-8", "--pricing", "on_demand",
                   "--data-dir", str(offline_data))
    said = " ".join(text.output.split())
    # no MoE serving result checks the model: no band, so no range, and the text says so
    assert b200["error_p90"] is None and "p90 error band" not in said
    assert "$0.24 per million accepted output tokens ($88.00/h); bottleneck" in said
    assert "uncalibrated (documented efficiencies); fewer than 5 checked results of its kind: a wide guess" in said
    assert "the managed API ($1.28/M) is cheaper below 9,600 accepted output tokens/s" in said


def test_a_measured_run_of_a_system_nobody_prices_says_so_without_a_dangling_cost():
    from warehouse.questions.plain_text import decision_text

    row = {"choice": "measured run", "pick": "baseline", "provider": "self-hosted", "instance_type": None,
           "pricing": "owned", "platform_id": "tpu-v6e-256", "n_gpus": 1024, "fleet_gpus": 1024,
           "layout": "tp8 pp8", "time_to_finish_h": 0.85, "usd_total": None, "usd_per_hour": None,
           "bottleneck": None, "confidence": "measured",
           "basis_note": "measured (bundled_mlperf, 2024-11-13), a system the catalog has no ownership cost for"}
    _, says = decision_text(row, serving=False)
    assert "51 min, unpriced;" in says and ", ;" not in says
