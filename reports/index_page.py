"""index.md: the page people open every morning. Short: the night and which prices ranked, per
job a table of the cheapest option on each price basis, what changed, then the same in prose
(one headline per workload with a link to its page), the charts that matter, and the sources."""

from __future__ import annotations

from reports import changes_page, chart_set, front_table, seed_questions
from reports.context import NightData
from reports.freshness import prices_line
from reports.headline import workload_headline
from reports.markdown import code, escape, image, page_link, table
from reports.night import Night
from warehouse.loading.observations import STALE_AFTER_DAYS
from warehouse.questions.plain_text import fmt_number

SOURCE_COLUMNS = {
    "source": ("source", None),
    "tonight": ("tonight", None),
    "last_ok": ("last good", str),
    "rows_loaded": ("rows then", None),
    "stale": ("stale", lambda v: "stale" if v else "fresh"),
    "message": ("message", None),
}
REJECTED_COLUMNS = {
    "source": ("source", None), "target_table": ("table", None), "rule": ("rule", None), "rows": ("rows", None),
    "example": ("example", None),
}


def run_line(night: Night) -> str:
    """The night's run: the only line of a report that differs between two runs on the same data."""
    if night.status is None:
        return f"Run {code(night.run_id)}: no run_log row.\n"
    started = night.started_at.strftime("%H:%M UTC") if night.started_at else "?"
    took = f"{night.duration_s:.0f} s" if night.duration_s is not None else "?"
    return (
        f"Run {code(night.run_id)} ({escape(night.mode)}), status **{escape(night.status)}**, started {started}, "
        f"took {took}: {night.price_rows} price quotes and {night.benchmark_rows} benchmark results loaded, "
        f"{night.rejected_rows} rows rejected, {night.estimate_rows or 0:,} priced estimates.\n"
    )


def _front_tables(data: NightData, workload_pages: dict[str, str]) -> list[str]:
    """Per job, the cheapest option of each price basis: the first screen of the page."""
    if data.front.height == 0:  # a night from before decisions were kept: the prose below says it
        return []
    out = ["## Cheapest per price basis, per job\n",
           "Each job's cheapest option on each price basis, never mixed: rent on-demand, spot or reserved; own "
           "(capex over the years of ownership at the assumed utilisation, with power and colocation); a managed "
           "API per token. Times and costs are roofline estimates calibrated on measured benchmarks; `±` is the "
           "median error of estimates of that kind and calibration against measured results held out of it. "
           "The change compares each row with the previous night's row of its basis; "
           f"{page_link('what changed', 'changes.md')} says why.\n"]
    previous = data.changes.previous
    for workload in front_table.jobs(data.workloads):
        wid = workload["workload_id"]
        rows, before = data.front_of(wid)
        out += front_table.section(workload, rows, before, previous, workload_pages[wid])
        out += seed_questions.answer(data, wid)
    return out


def page(data: NightData, rejected, unresolved, workload_pages: dict[str, str]) -> str:
    night = data.night
    out = [f"# gpucalc report — {night.run_date.isoformat()}\n", run_line(night),
           prices_line(data.known_prices, night, data.fresh_days)]
    out.append(" · ".join([
        page_link("Workloads in words", "#workloads"), page_link("What changed", "changes.md"),
        page_link("Prices", "prices.md"), page_link("Methodology and sources", "methodology.md"),
        page_link("Every night", "../index.md"),
    ]) + "\n")
    out += _front_tables(data, workload_pages)
    out += changes_page.index_section(data.changes)
    out.append("## Workloads\n")
    out.append(
        "The tables above in words, with layouts and bottlenecks: what to rent on-demand (the cheapest and the "
        "fastest), what spot would save, when buying pays and what a managed API would cost, each on its own "
        "price basis. `±` is the median held-out error of that confidence level in the backtest. Each workload's "
        "page ranks every option.\n"
    )
    benchmarks = []
    for workload in data.workloads.iter_rows(named=True):
        wid = workload["workload_id"]
        if (workload.get("purpose") or "job") == "benchmark":
            benchmarks.append(page_link(wid, workload_pages[wid]))
            continue
        out.append(f"### {page_link(workload['name'], workload_pages[wid])} ({code(wid)}, "
                   f"{escape(workload['kind'])})\n")
        out.append("\n".join(workload_headline(workload, data.options_of(wid), data.decisions_of(wid))) + "\n")
    if benchmarks:
        out.append("### MLPerf benchmark definitions\n")
        out.append("Kept to calibrate and backtest the model against published results, not as jobs to buy for: "
                   + ", ".join(benchmarks) + ".\n")
    out.append("## Charts\n")
    first = data.workloads.row(0, named=True)["workload_id"] if data.workloads.height else None
    for name in (chart_set.workload_chart_file(first) if first else None, chart_set.BACKTEST_FILE,
                 chart_set.BOTTLENECK_FILE):
        if name in data.charts:
            out.append(f"{image(data.charts[name].title, name)}\n")
    out.append(f"Price history per accelerator: {page_link('prices', 'prices.md')}.\n")
    out.append("## Sources tonight\n")
    out.append(f"Stale = no successful load in the last {STALE_AFTER_DAYS} days; a source that fails keeps its "
               "last good data.\n")
    out.append(table(data.sources, SOURCE_COLUMNS))
    out.append("## Rejected rows\n")
    out.append(table(rejected, REJECTED_COLUMNS))
    out.append('Every rejected row, with the row as received: `gpucalc sql "select * from rejected_row"`.\n')
    if unresolved.height:
        out.append("### GPU names that did not resolve\n")
        out.append(
            "A line in `<data>/catalog/gpu_alias.csv` (`alias,gpu_id,note`) and `gpucalc replay --date "
            f"{night.run_date.isoformat()}` recover these rows.\n"
        )
        out.append(table(unresolved, {"source": ("source", None), "gpu_name": ("as spelled", None),
                                      "rows": ("rows", fmt_number), "why": ("why", None)}))
    out.append("## Where every input came from\n")
    quotes = data.known_prices.select("source", "source_ref").unique().height
    out.append(
        f"{quotes} price references and every benchmark and catalog source, linked, with the formulas, efficiencies "
        f"and calibration behind each estimate: {page_link('methodology and sources', 'methodology.md')}.\n"
    )
    return "\n".join(out)
