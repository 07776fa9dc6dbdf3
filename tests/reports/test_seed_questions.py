"""The seed questions at the top of the morning report (issue 35, item 8): 4x B200 against the
measured DFlash run, and GB200 NVL72 against HGX B200 for DeepSeek-R1, from the night's options."""

from __future__ import annotations

import pytest

from reports.seed_questions import _break_even, against_run
from tests.reports.conftest import D2, query


def test_against_the_run_is_speed_and_cost_with_the_range_the_band_allows():
    base = {"time_to_finish_h": 200.0, "usd_total": 600.0}
    # 50 h at $900: 4x as fast, 1.5x the cost; throughput within ±25% moves both
    assert against_run({"time_to_finish_h": 50.0, "usd_total": 900.0, "error_p90": 0.25}, base) == (
        "4.0x as fast, 1.50x the cost (range 3.0-5.0x as fast, 1.20-2.00x the cost at ±25%)")
    assert against_run({"time_to_finish_h": 50.0, "usd_total": 900.0, "error_p90": None}, base) == (
        "4.0x as fast, 1.50x the cost")  # no band: the verdict below the table says it is a wide guess
    assert against_run({"time_to_finish_h": 50.0, "usd_total": 900.0, "error_p90": 1.2}, base) == (
        "4.0x as fast, 1.50x the cost (within ±120%: up to 8.8x as fast, from 0.68x the cost, with no upper bound)")


def test_the_break_even_is_the_gpu_hour_price_at_which_the_costs_meet():
    base = {"usd_total": 600.0}
    # $900 at $5.00 per GPU-hour costs $600 at $3.33
    assert _break_even({"pricing": "on_demand", "usd_per_gpu_hour": 5.0, "usd_total": 900.0}, base) == (
        "$3.33/GPU-h (tonight $5.00)")
    assert _break_even({"pricing": "owned", "usd_per_gpu_hour": 5.0, "usd_total": 900.0}, base) == ""


def test_the_report_opens_with_both_seed_questions_from_the_nights_options(nights):
    index = nights.again_files["index.md"].decode()
    tables = index.split("## Cheapest per price basis, per job\n", 1)[1].split("\n## ", 1)[0]
    # each seed question right under its job's table, the two seed jobs first
    jobs = tables.split("\n### ")[1:]
    assert jobs[0].startswith("[DFlash drafter training") and jobs[1].startswith("[DeepSeek-R1 reasoning serving")
    dflash = jobs[0].split("\n#### Seed question: ", 1)[1]
    deepseek = jobs[1].split("\n#### Seed question: ", 1)[1]
    assert all("#### Seed question" not in job for job in jobs[2:])
    ((run_h, run_usd),) = query(nights, """select time_to_finish_h, usd_total from night_decision
        where run_date = ? and workload_id = 'dflash-qwen36-27b' and choice = 'measured run'""", [D2])
    ((hours, usd, per_gpu_hour, provider),) = query(nights, """
        select time_to_finish_h, usd_total, usd_per_gpu_hour, provider from night_option
        where run_date = ? and workload_id = 'dflash-qwen36-27b' and platform_id = 'hgx-b200-8' and n_gpus = 4
          and pricing = 'on_demand' order by usd_total, time_to_finish_h, provider limit 1""", [D2])
    row = next(line for line in dflash.splitlines() if line.startswith("| on-demand |"))
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[1].startswith("4x B200 (") and cells[2] == provider
    assert cells[4] == f"${usd:,.0f}"
    assert cells[5].startswith(f"{run_h / hours:.1f}x as fast, {usd / run_usd:.2f}x the cost")
    assert cells[6] == f"${per_gpu_hour * run_usd / usd:.2f}/GPU-h (tonight ${per_gpu_hour:.2f})"
    ((banded,),) = query(nights, """select count(error_p90) from night_option where run_date = ?
        and workload_id = 'dflash-qwen36-27b' and platform_id = 'hgx-b200-8' and n_gpus = 4""", [D2])
    assert ("they are a wide guess" in dflash) == (banded == 0)  # one measured role pipeline: no band
    assert dflash.startswith("would 4x B200 train the DFlash drafter faster and cheaper?")
    assert deepseek.startswith("GB200 NVL72 or HGX B200 for this job?")
    on_demand = {p: (c, pr) for p, c, pr in query(nights, """
        select platform_id, min(usd_per_mtok), arg_min(provider, usd_per_mtok) from night_option
        where run_date = ? and workload_id = 'deepseek-r1-mtp' and pricing = 'on_demand'
          and platform_id in ('gb200-nvl72', 'hgx-b200-8') group by all""", [D2])}
    row = next(line for line in deepseek.splitlines() if line.startswith("| on-demand |"))
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    (gb, gb_provider), (b2, b2_provider) = on_demand["gb200-nvl72"], on_demand["hgx-b200-8"]
    assert cells[1].startswith(f"${gb:.2f}: ") and cells[1].endswith(gb_provider)
    assert cells[2].startswith(f"${b2:.2f}: ") and cells[2].endswith(b2_provider)
    assert cells[3] == f"{gb / b2:.2f}x"
    assert cells[4] == (f"the platforms' (one provider, {gb_provider})" if gb_provider == b2_provider
                        else f"partly the providers' ({gb_provider} against {b2_provider})")
    assert pytest.approx(gb / b2, rel=0.01) == float(cells[3].rstrip("x"))
