"""Two nights with one price moved between them and a backfill in between, end to end
(the `nights` fixture, tests/reports/conftest.py)."""

from __future__ import annotations

import json
import re
import struct

import pytest
from typer.testing import CliRunner

from tests.reports.conftest import D0, D1, D2, HOSTILE, folder_bytes, query


def test_the_change_section_names_the_moved_price_and_only_it(nights):
    from reports import changes
    from reports.night import find
    from warehouse.store.reader import connect_reader

    con = connect_reader(nights.warehouse)
    try:
        found = changes.since_previous(con, find(con, D2))
    finally:
        con.close()
    assert found.previous.run_date == D1  # the backfill (run_date D0, run after D1) never poses as last night
    moves = found.price_moves.select("provider", "instance_type", "usd_per_gpu_hour", "usd_per_gpu_hour_now").rows()
    assert moves == [("example-neocloud", HOSTILE, pytest.approx(0.1), pytest.approx(0.9))]
    assert found.appeared.height == 0 and found.vanished.height == 0  # the backfilled L4 offer is not "new"
    assert found.sources.height == 0
    assert found.winners.height >= 3  # the $0.10 quote won the cheapest option of every workload an L40S runs
    for row in found.winners.iter_rows(named=True):
        assert "example-neocloud" in row["was"] and "example-neocloud" not in row["now"]
        assert "moved $0.10 → $0.90 per GPU-hour" in row["why"]
    cheapest = {r["workload_id"] for r in found.winners.iter_rows(named=True) if r["pricing"] == "on_demand"}
    assert {r["pricing"] for r in found.winners.iter_rows(named=True)} == {"on_demand"}  # the quote's basis only
    expected = query(nights, """
        with ranked as (select workload_id, provider, row_number() over (partition by workload_id, pricing
                        order by usd_total, time_to_finish_h, platform_id, n_gpus, provider) as r
                        from night_option where run_date = ? and pricing = 'on_demand')
        select workload_id from ranked where r = 1 and provider = 'example-neocloud'""", [D1])
    assert cheapest == {w for (w,) in expected}

    index = nights.night2["index.md"].decode()
    assert "## What changed since the previous night (2026-11-24)" in index
    assert "1 price move of 2% or more, 0 offers appeared, 0 offers vanished" in index
    assert "| 8x L40S &lt;b&gt;\\|quoted\\|&lt;/b&gt; \\[x\\](javascript:alert(1)) |" in index  # one cell, inert


def test_only_nightly_runs_keep_snapshots(nights):
    modes = query(nights, "select run_date, mode from run_log where status <> 'running' order by started_at")
    assert [m for _, m in modes] == ["online", "ingest", "ingest", "offline", "offline"]
    assert query(nights, "select run_date from night_run order by 1") == [(D1,), (D2,)]
    # the backfilled observation is in the price history the D2 night knew, not in D1's
    points = query(nights, "select run_date, observed_at, usd_per_gpu_hour from night_price_point "
                           "where provider = 'example-neocloud' and gpu = 'L40S' order by all")
    assert points == [(D1, D1, 0.1), (D2, D0, 0.5), (D2, D2, 0.9)]


# Two runs differ in the run's id and clock times, nothing else.
RUN_LINE = re.compile(r"\d{4}-\d{2}-\d{2}-\d+|started \d\d:\d\d UTC|took \d+ s")


def test_a_rerun_on_the_same_data_differs_only_in_the_run_line(nights):
    night2, again = nights.night2, nights.again_files
    assert sorted(night2) == sorted(again)
    for name in sorted(night2):
        if name.endswith(".png") or name == "summary.json":
            assert night2[name] == again[name], name
            continue
        old, new = night2[name].decode().splitlines(), again[name].decode().splitlines()
        assert len(old) == len(new), name
        for a, b in zip(old, new, strict=True):
            if a != b:
                assert RUN_LINE.sub("#", a) == RUN_LINE.sub("#", b), (name, a, b)
    run_lines = [line for line in again["index.md"].decode().splitlines() if line.startswith("Run ")]
    assert len(run_lines) == 1 and night2["index.md"] != again["index.md"]  # the run line did change


def test_gpucalc_report_rebuilds_a_past_night_byte_for_byte(nights, monkeypatch):
    from flows.cli import app

    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")  # the deleted charts are drawn, not found in gpucalc's cache

    runner = CliRunner()
    day1 = nights.reports / D1.isoformat()
    # Some charts and pages deleted: rebuilt, they are drawn again from D1's snapshot, after the
    # backfill and two later nights changed the live tables; the rest is rebuilt from it too.
    for name in ("index.md", "index.html", "chart-price-l40s.png", "chart-workload-dflash-qwen36-27b.png",
                 "chart-backtest.png", "workloads/llama2-70b-offline.md"):
        (day1 / name).unlink()
    result = runner.invoke(app, ["report", "--date", D1.isoformat(), "--data-dir", str(nights.data)])
    assert result.exit_code == 0, result.output
    assert re.search(r"\b3 of \d+ charts drawn", result.output), result.output
    assert folder_bytes(day1) == nights.night1
    # a day without a night: one sentence and a hint, exit 1
    result = runner.invoke(app, ["report", "--date", D0.isoformat(), "--data-dir", str(nights.data)])
    assert result.exit_code == 1
    assert "no nightly run kept a report snapshot for 2026-11-20" in result.output and "hint:" in result.output


def test_every_chart_plots_what_the_warehouse_holds(nights):
    from reports.chart_png import DIGEST_KEY, png_text
    from reports.chart_set import price_chart_file

    charts = nights.again.charts
    for chart in charts.values():
        assert chart.png.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack(">II", chart.png[16:24])
        assert width == 800 and height >= 300
        text = png_text(chart.png)
        assert text.get(DIGEST_KEY) == chart.digest and "Software" not in text

    seed = charts["chart-workload-dflash-qwen36-27b.png"].data
    (options,) = query(nights, "select count(*) from estimate_best where workload_id = 'dflash-qwen36-27b'")[0]
    assert len(seed["points"]) == options
    frontier = query(nights, "select pricing, usd_total, time_to_finish_h from pareto "
                             "where workload_id = 'dflash-qwen36-27b' order by pricing, usd_total, time_to_finish_h")
    assert len(frontier) > 1 and len({pricing for pricing, _, _ in frontier}) > 1
    for pricing, points in seed["frontiers"].items():  # one frontier per price basis, never mixed
        assert points == [pytest.approx((x, y)) for p, x, y in frontier if p == pricing]
    assert sum(len(points) for points in seed["frontiers"].values()) == len(frontier)

    serving = charts["chart-workload-llama2-70b-offline.png"].data
    assert serving["x"] == "usd_per_mtok"
    assert len(serving["points"]) == query(
        nights, "select count(*) from estimate_best where workload_id = 'llama2-70b-offline'")[0][0]

    l40s = charts["chart-price-l40s.png"].data["series"]
    expected = query(nights, """select provider, pricing, observed_at, min(usd_per_gpu_hour) from price_quote
                                where gpu = 'L40S' and observed_at <= ? group by all order by all""", [D2])
    assert [(p, q, d, v) for (p, q), points in l40s.items() for d, v in points] == [
        (p, q, d, pytest.approx(v)) for p, q, d, v in expected]
    assert l40s[("example-neocloud", "on_demand")] == [(D0, 0.5), (D1, 0.1), (D2, 0.9)]
    # a history is drawn for an accelerator priced on two days or more (H100-SXM: the snapshot's day
    # and CoreWeave's page's); one observed on one day only has none to draw
    days = dict(query(nights, "select gpu, count(distinct observed_at) from price_quote where observed_at <= ? "
                              "group by gpu", [D2]))
    assert days["H100-SXM"] == 2 and "chart-price-h100-sxm.png" in charts
    assert {name for name in charts if name.startswith("chart-price-")} == {
        price_chart_file(gpu) for gpu, observed_days in days.items() if observed_days >= 2}

    backtest = charts["chart-backtest.png"].data
    assert len(backtest["points"]) == query(nights, "select count(*) from backtest where loao_factor is not null")[0][0]

    mix = charts["chart-bottlenecks.png"].data["mix"]
    rows = query(nights, "select platform_id, bottleneck, count(*) from topology_estimate where fits group by all")
    assert {(p, b, n) for p, counts in mix.items() for b, n in counts.items()} == set(rows)


def test_pages_history_and_latest(nights):
    files = nights.again_files
    index = files["index.md"].decode()
    assert len(index.splitlines()) < 275  # the seed questions, then a headline per workload, not every option
    for page in ("changes", "prices", "methodology", "workloads/dflash-qwen36-27b", "workloads/llama2-70b-offline"):
        assert f"{page}.md" in files and f"{page}.html" in files
    assert "](workloads/dflash-qwen36-27b.md)" in index and "![" in index
    workload = files["workloads/llama2-70b-offline.md"].decode()
    assert "## On-demand: every option, cheapest first" in workload
    assert "(../chart-workload-llama2-70b-offline.png)" in workload
    for kind, title in (("memory", "## Refused: does not fit in memory"),
                        ("latency", "## Refused: cannot meet the latency limits")):
        ((refused,),) = query(
            nights, "select min(workload_id) from night_refusal where run_date = ? and refusal_kind = ?", [D2, kind]
        )
        assert title in files[f"workloads/{refused}.md"].decode()
    methodology = files["methodology.md"].decode()
    assert "## The calibration each estimate used" in methodology and "## Backtest" in methodology
    assert "(https://github.com/mlcommons/" in methodology  # benchmark references link to the commit's file

    html = files["index.html"].decode()
    assert '<meta name="viewport"' in html and 'href="changes.html"' in html and "<b>" not in html
    assert 'src="chart-backtest.png"' in html and '<div class="scroll"><table>' in html
    assert not any("javascript:" in href for href in re.findall(r'href="([^"]*)"', html))

    history = (nights.reports / "index.md").read_text()
    rows = [line for line in history.splitlines() if line.startswith("| [")]
    assert rows[0].startswith("| [2026-11-25](2026-11-25/index.md) | success | ")
    assert rows[1].startswith("| [2026-11-24](2026-11-24/index.md) | success | ")
    assert "1 price move of 2% or more" in rows[0]
    latest = nights.reports / "latest"
    assert latest.is_symlink() and latest.resolve() == (nights.reports / D2.isoformat()).resolve()
    assert (nights.reports / "index.html").exists()


def test_a_workload_page_ranks_each_price_basis_apart_by_cost(nights):
    from reports.html import SCRIPT

    files, wid = nights.again_files, "llama2-70b-offline"
    page = files[f"workloads/{wid}.md"].decode()
    words = {"on_demand": "On-demand", "spot": "Spot", "owned": "Owned", "reserved_1y": "Reserved 1 year"}
    bases = query(nights, """select pricing, count(*), arg_min(usd_total, (usd_total, time_to_finish_h)),
                                    arg_min(error_p50, (usd_total, time_to_finish_h))
                             from night_option where run_date = ? and workload_id = ? group by all order by all""",
                  [D2, wid])
    headings = re.findall(r"^## (.+): every option, cheapest first$", page, re.MULTILINE)
    assert sorted(headings) == sorted(words[b] for b, *_ in bases) and len(bases) >= 3
    for basis, options, cheapest, band in bases:
        ranking = page.split(f"\n## {words[basis]}: every option, cheapest first\n")[1].split("\n## ")[0]
        rows = [line.split(" | ") for line in ranking.splitlines() if re.match(r"\| \d+ \|", line)]
        assert len(rows) == options
        costs = [float(r[1].lstrip("$").replace(",", "")) for r in rows]
        figures = 2 if band is None or band >= 0.1 else 3  # what the cheapest row's band supports
        assert costs[0] == float(f"{cheapest:.{figures}g}")
        assert all(b >= a * 0.95 for a, b in zip(costs, costs[1:], strict=False))  # cheapest first, up to the rounding
    for name, text in files.items():
        if name.startswith("workloads/") and name.endswith(".md"):
            assert not re.search(r"\b0 min", text.decode()), name
    assert files[f"workloads/{wid}.html"].decode().count("<script>") == 1
    assert SCRIPT.strip() in files[f"workloads/{wid}.html"].decode()


def test_the_flow_publishes_the_summary_and_the_cheapest_per_basis(nights):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    from reports.markdown import escape

    assert nights.flow_result["report"] == str(nights.reports / "2026-11-25" / "index.md")
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[nights.flow_run_id]))
        )
    by_key = {a.key: a for a in found}
    assert set(by_key) == {"gpucalc-nightly-report", "gpucalc-cheapest-per-basis"}
    assert "What changed since the previous night" in by_key["gpucalc-nightly-report"].data
    assert "![" not in by_key["gpucalc-nightly-report"].data  # images cannot be reached from Prefect's UI
    # the table says what the front page's tables say: per job and basis, the same words and change
    assert by_key["gpucalc-cheapest-per-basis"].type == "table"
    table = json.loads(by_key["gpucalc-cheapest-per-basis"].data)
    index = (nights.reports / "2026-11-25" / "index.md").read_text()
    assert [r["job"] for r in table][:1] == ["dflash-qwen36-27b"]  # the seed questions first
    for row in table:  # the page escapes what the table keeps as written
        cells = {name: escape(value) for name, value in row.items()}
        assert f"| {cells['basis']} | {cells['platform and GPUs']} | {cells['provider']} |" in index, row
        assert f"| {cells['change']} | {cells['confidence']} |" in index, row
    assert {r["change"] for r in table} & {"no change"}
    # the moved quote won on-demand somewhere the night before: the table names the old winner there
    assert {r["basis"] for r in table if "was example-neocloud" in r["change"]} == {"on-demand"}


def test_export_writes_the_tables(nights, tmp_path):
    import pyarrow.parquet

    from flows.cli import app

    result = CliRunner().invoke(app, ["export", "--data-dir", str(nights.data), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for table in ("estimate_best", "estimate_daily", "price_quote", "latest_price", "benchmark_result", "backtest"):
        rows = pyarrow.parquet.read_table(tmp_path / f"{table}.parquet").num_rows
        assert rows == query(nights, f"select count(*) from {table}")[0][0]
    result = CliRunner().invoke(app, ["export", "--format", "csv", "--data-dir", str(nights.data),
                                      "--out", str(tmp_path / "csv")])
    assert result.exit_code == 0 and (tmp_path / "csv" / "price_quote.csv").read_text().startswith("\"provider\",")
    a_file = tmp_path / "csv" / "price_quote.csv"
    result = CliRunner().invoke(app, ["export", "--data-dir", str(nights.data), "--out", str(a_file)])
    assert result.exit_code == 2 and "is a file, not a folder" in re.sub(r"[\s│]+", " ", result.output)


BASIS_ORDER = "case pricing when 'on_demand' then 0 when 'spot' then 1 when 'reserved_1y' then 2 " \
              "when 'reserved_3y' then 3 when 'owned' then 4 else 5 end"


def test_the_front_page_opens_with_each_jobs_cheapest_option_per_price_basis(nights):
    index = nights.again_files["index.md"].decode()
    tables = index.split("## Cheapest per price basis, per job\n", 1)[1].split("\n## ", 1)[0]
    assert index.index("## Cheapest per price basis") < index.index("## What changed") < index.index("## Workloads")
    pages = [tables.index(f"(workloads/{w}.md)") for w in ("dflash-qwen36-27b", "deepseek-r1-mtp", "llama2-70b-chat")]
    assert pages == sorted(pages)  # the seed questions' jobs first
    first = tables.split("\n### ")[1].split("\n#### ", 1)[0]  # the job's table, not its seed question's
    header, _, *rows = [line for line in first.splitlines() if line.startswith("|")]
    assert header == ("| basis | platform and GPUs | provider | time (days) | total cost | since 2026-11-24 "
                      "| confidence |")
    cells = [[c.strip() for c in row.strip("|").split(" | ")] for row in rows]

    decided = query(nights, f"""
        select pricing, provider, fleet_gpus, gpu_id, time_to_finish_h, usd_total, error_p50, confidence
        from night_decision
        where run_date = ? and workload_id = 'dflash-qwen36-27b' and pick = 'cheapest' and choice <> 'measured run'
        order by {BASIS_ORDER}""", [D2])
    words = {"on_demand": "on-demand", "spot": "spot", "reserved_1y": "reserved 1 year",
             "reserved_3y": "reserved 3 years", "owned": "owned"}
    assert [c[0] for c in cells] == [words[p] for p, *_ in decided]  # one row per basis present
    assert len({p for p, *_ in decided}) == len(decided) >= 3
    # the on-demand row, read back from the warehouse and formatted by hand
    _, provider, gpus, gpu_id, hours, usd, p50, level = decided[0]
    basis, fleet, shown_provider, days, cost, since, confidence = cells[0]
    assert (basis, shown_provider) == ("on-demand", provider)
    assert fleet.startswith(f"{gpus}x {gpu_id.replace('-', ' ')} (")
    assert float(days) == pytest.approx(hours / 24, rel=0.05)  # two significant figures
    assert cost == f"${usd:,.0f}"
    ((was_provider, was_platform, was_usd),) = query(nights, """
        select provider, platform_id, usd_total from night_decision
        where run_date = ? and workload_id = 'dflash-qwen36-27b' and choice = 'rent on-demand' and pick = 'cheapest'""",
        [D1])
    if was_provider == provider:
        assert since == "no change" if round(was_usd) == round(usd) else since.endswith(f"from ${was_usd:,.0f}")
    else:
        assert since.startswith("+" if usd > was_usd else "-") and since.endswith(
            f"from ${was_usd:,.0f} (was {was_provider})")
    # the band of the option's class (a role pipeline's: the seed run alone)
    ((points,),) = query(nights, """
        select b.points from night_error_band_class b join night_option o on o.run_date = b.run_date
         and o.kind = b.kind and o.calibration_level = b.level and b.class = 'role pipeline'
        where b.run_date = ? and o.workload_id = 'dflash-qwen36-27b' and o.pricing = 'on_demand' and o.provider = ?
          and o.n_gpus = (select n_gpus from night_decision where run_date = ? and workload_id = 'dflash-qwen36-27b'
                          and choice = 'rent on-demand' and pick = 'cheapest')
          and o.error_points = b.points
        limit 1""", [D2, provider, D2])
    if level == "measured":
        assert confidence == "measured at this size"
    elif p50 is not None:
        assert confidence == f"±{100 * p50:.0f}% on {points} checked results"
    else:  # fewer than 5 held-out points: no band
        assert confidence == (f"{points} measured result{'s' if points != 1 else ''}: a wide guess" if points
                              else "no measured result: a wide guess")


def test_the_front_page_says_which_prices_ranked_and_how_many_were_stale(nights):
    index = nights.again_files["index.md"].decode()
    # the warehouse's own rule (latest_quote), as of its last rebuild: the D2 night again
    ((stale,),) = query(nights, "select count(*) from stale_price")
    ((bundled,),) = query(nights, "select count(*) from latest_price where source = 'bundled_snapshot'")
    ((ingested, observed),) = query(nights, "select count(*), max(observed_at) from latest_price "
                                             "where source = 'quotes_file'")
    assert stale > 0 and (ingested, observed) == (1, D2)  # the L40S quote; the backfill's L4 offer was rejected
    line = (f"**Prices ranked tonight:** quotes you ingested (quotes\\_file: 1 quote, observed {D2}); "
            f"the bundled price snapshot of 2026-11-01 (24 days old; {bundled} quotes), an offline night (no live "
            f"fetch). {stale} quotes older than 30 days left out (listed on [prices](prices.md)).\n")
    assert line in index and index.index(line) < index.index("## Cheapest per price basis")
