"""Build a night's report folder from the warehouse: markdown pages, PNG charts, HTML, summary.

`<reports>/<date>/`: index.md (the morning read), changes.md, prices.md, methodology.md,
workloads/<workload>.md, the chart-*.png they embed, an .html twin of every page and
summary.json (the history page's line). Everything comes from the night's snapshot
(`night_*` tables), so rebuilding a past night (`gpucalc report --date D`) writes the same
bytes the night wrote. The folder is built aside and swapped in whole, so no file of an
older build survives in it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from reports import (
    changes_page,
    chart_set,
    context,
    front_table,
    index_page,
    methodology_page,
    prices_page,
    queries,
    workload_page,
)
from reports.chart_png import Chart, ChartCache
from reports.headline import night_headline
from reports.history import write_history
from reports.html import to_html, to_html_reusing
from reports.night import Night, all_dates, find, newest, previous_night

Step = Callable[[str], None]


@dataclass
class Published:
    folder: Path
    path: str  # the index.md
    markdown: str  # index.md as written
    artifact: str  # index.md for a Prefect artifact: no images, no links into the folder
    per_basis: list[dict] = field(default_factory=list)  # the front tables, flat (front_table.artifact_rows)
    files: dict[str, bytes] = field(default_factory=dict)  # relative path -> bytes
    charts: dict[str, Chart] = field(default_factory=dict)
    kept: str | None = None  # a failed night left the day's good report in place: that report's run id


def build(con, night: Night, on_step: Step | None = None, cache: ChartCache | None = None
          ) -> tuple[dict[str, bytes], context.NightData]:
    """Every file of the night's report folder, in memory; charts whose data `cache` holds are not redrawn."""
    step = on_step or (lambda _message: None)
    step("report: reading the night's snapshot")
    data = context.load(con, night)
    _draw_charts(con, data, cache, step)
    step("report: writing pages")
    pages = _pages(con, data)
    step("report: writing HTML")
    earlier = cache.folders if cache else []
    files = {name: text.encode() for name, text in pages.items()}
    files |= {name.removesuffix(".md") + ".html": to_html_reusing(name, text, earlier).encode()
              for name, text in pages.items()}
    files |= {name: chart.png for name, chart in data.charts.items()}
    summary = {"date": night.run_date.isoformat(), "status": night.status, "mode": night.mode,
               "headline": night_headline({"estimate_rows": night.estimate_rows},
                                          changes_page.summary_line(data.changes))}
    files["summary.json"] = (json.dumps(summary, indent=2, sort_keys=True) + "\n").encode()
    return files, data


def _draw_charts(con, data: context.NightData, cache: ChartCache | None, step: Step) -> None:
    """Every chart of the night into data.charts: per workload, backtest, bottlenecks, per accelerator,
    and each interactivity curve the night kept."""
    night = data.night
    jobs = [lambda w=w: chart_set.workload_chart(w, data.options_of(w["workload_id"]), cache)
            for w in data.workloads.iter_rows(named=True)]
    jobs += [lambda: chart_set.backtest_chart(con, night, cache), lambda: chart_set.bottleneck_chart(con, night, cache)]
    series = chart_set.price_series(data.known_prices)
    jobs += [lambda g=g: chart_set.price_chart(g, series[g], cache) for g in sorted(series)]
    curved = set(data.curves["workload_id"].to_list()) if data.curves.height else set()
    jobs += [lambda w=w: chart_set.curve_chart(w, data.curve_of(w["workload_id"]), cache)
             for w in data.workloads.iter_rows(named=True) if w["workload_id"] in curved]
    for index, job in enumerate(jobs, 1):
        step(f"report: drawing chart {index}/{len(jobs)}")
        chart = job()
        data.charts[chart.file] = chart


def _pages(con, data: context.NightData) -> dict[str, str]:
    """Every markdown page of the folder, by relative path."""
    night = data.night
    pages, workload_pages = {}, {}
    refused = queries.refusals(con, night)
    for workload in data.workloads.iter_rows(named=True):
        wid = workload["workload_id"]
        name = f"workloads/{chart_set.slug(wid)}.md"
        workload_pages[wid] = name
        pages[name] = workload_page.page(workload, data.options_of(wid), refused.get(wid, refused[""]),
                                         data.decisions_of(wid), data.platforms,
                                         night.run_date, data.charts)
    pages["index.md"] = index_page.page(data, queries.rejected(con, night), queries.unresolved_gpus(con, night),
                                        workload_pages)
    pages["changes.md"] = changes_page.page(data.changes, f"What changed — {night.run_date.isoformat()}")
    pages["prices.md"] = prices_page.page(data.known_prices, night, data.charts, queries.price_fresh_days(con, night))
    pages["methodology.md"] = methodology_page.page(con, night, data.charts)
    return pages


def missing(day: date, latest: Night | None) -> dict[str, bytes]:
    """The folder of a day no night kept a snapshot for: says why, in one page."""
    why = (f"the warehouse's newest night is {latest.run_date}: a run dated before it rebuilds the estimates as of "
           "that night and keeps no snapshot of its own" if latest and latest.run_date > day
           else "no nightly run of this day finished with its estimates rebuilt")
    text = f"# gpucalc report — {day.isoformat()}\n\nNo report for this day: {why}.\n"
    summary = {"date": day.isoformat(), "status": "no snapshot", "mode": None, "headline": why}
    return {"index.md": text.encode(), "index.html": to_html(text).encode(),
            "summary.json": (json.dumps(summary, indent=2, sort_keys=True) + "\n").encode()}


class NoNight(LookupError):
    """No nightly run kept a report snapshot for the day asked for."""


def write_report(location: str, reports_dir: Path, run_date: date | None = None, on_step: Step | None = None,
                 allow_missing: bool = False, night_failed: bool = False) -> Published:
    """Build the report of `run_date` (default: the newest night), write it, update the history.

    A day without a snapshot raises NoNight, or with `allow_missing` (the nightly's own
    publish step) writes a one-page folder that says why. A night that failed (`night_failed`,
    the nightly's own status) never replaces a report a good night of the same day wrote: the
    folder stays as it was and `kept` names that night's run; the failed night's pages are still
    built, for its artifacts.
    """
    from warehouse.store.reader import connect_reader

    con = connect_reader(location)
    try:
        night = find(con, run_date) if run_date else newest(con)
        day = night.run_date if night else run_date
        if day is None:
            raise NoNight("the warehouse has no nightly run with a report snapshot yet")
        if night is None and not allow_missing:
            dates = ", ".join(d.isoformat() for d in all_dates(con)[:5]) or "none"
            raise NoNight(f"no nightly run kept a report snapshot for {day.isoformat()} (newest nights: {dates})")
        if night is None:
            files, per_basis = missing(day, newest(con)), []
            charts: dict[str, Chart] = {}
        else:
            earlier = previous_night(con, night)
            folders = [reports_dir / day.isoformat()]  # this night's last build, then last night's
            folders += [reports_dir / earlier.run_date.isoformat()] if earlier else []
            files, data = build(con, night, on_step, ChartCache(folders))
            per_basis = front_table.artifact_rows(data.workloads, data.front_of, data.changes.previous)
            charts = data.charts
        folder = reports_dir / day.isoformat()
        kept = good_report_in(con, folder) if night_failed else None
    finally:
        con.close()
    text = files["index.md"].decode()
    artifact = artifact_text(text, folder)
    if kept is None:
        swap_in(folder, files)
    else:
        artifact = f"{kept_sentence(kept, day)}.\n\n{artifact}"
    write_history(reports_dir)
    return Published(folder, str(folder / "index.md"), text, artifact, per_basis, files, charts, kept)


_GOOD = ("success", "partial")


def good_report_in(con, folder: Path) -> str | None:
    """The run id of the good night whose report `folder` holds, or None (no folder, or not a good night's).

    The folder's summary.json says how its night ended; the warehouse's run log names the run: the
    latest nightly run of that day that ended well.
    """
    try:
        summary = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict) or summary.get("status") not in _GOOD:
        return None
    row = con.execute(
        """select run_id from run_log where run_date = ? and mode in ('online', 'offline')
             and status in ('success', 'partial')
           order by finished_at desc nulls last, run_id desc limit 1""",
        [summary.get("date") or folder.name],
    ).fetchone()
    return row[0] if row else "an earlier night"


def kept_sentence(run_id: str, day: date) -> str:
    return f"kept the report of {run_id} for {day.isoformat()}: this night failed"


def swap_in(folder: Path, files: dict[str, bytes]) -> None:
    """Write the files to a fresh folder beside `folder`, then put it in place of `folder`."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = folder.parent / f".{folder.name}.new-{os.getpid()}"
    stale = folder.parent / f".{folder.name}.old-{os.getpid()}"
    for path in (fresh, stale):
        if path.exists():
            shutil.rmtree(path)
    try:
        for name, content in sorted(files.items()):
            target = fresh / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    except BaseException:  # a full disk, say: the night's old report stays, no half-written folder beside it
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    if folder.exists():
        folder.rename(stale)
    fresh.rename(folder)
    if stale.exists():
        shutil.rmtree(stale)


_IMAGE_LINE = re.compile(r"^!\[.*\]\(.*\)\s*$")
_LOCAL_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\((?!https?://)[^)]*\)")


def artifact_text(index: str, folder: Path) -> str:
    """The index for Prefect's UI, where the folder's images and pages cannot be reached."""
    lines = [line for line in index.splitlines() if not _IMAGE_LINE.match(line)]
    body = _LOCAL_LINK.sub(r"\1", "\n".join(lines))
    return body + f"\n\nThe whole report, charts and pages: `{folder / 'index.html'}`\n"

