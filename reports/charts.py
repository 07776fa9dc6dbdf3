"""The report's five kinds of chart, drawn with matplotlib on the Agg canvas (chart_png.py makes
the PNG, deterministic and reusable). Each returns a `Chart` whose `data` is what it plotted,
in a fixed order, so a test can hold it against the warehouse.

No pyplot (no global figure state, no interactive backend), a fixed width and margins sized
from what they hold (not tight_layout): the title's lines above the axes, a legend's rows below
them, so neither leaves the canvas. Plain-text log ticks at 1-2-5 steps (mathtext labels and
minor ticks multiply the drawing time, docs/scale.md), one colour per price basis in the option
charts, and one distinct colour per provider or bottleneck where those are the series.
"""

from __future__ import annotations

import math
import textwrap
from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, DateFormatter
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from reports.chart_png import DPI, Chart, ChartCache, make_chart, settle

SIZE = (8.0, 4.6)  # inches: 800 x 460 px at DPI, readable on a phone at full width
PRICING_COLOURS = {  # one colour per price basis, the same in every chart
    "on_demand": "#1f77b4", "spot": "#ff7f0e", "reserved_1y": "#2ca02c", "reserved_3y": "#17becf",
    "owned": "#7f7f7f",
}
OTHER_COLOUR = "#d62728"
# matplotlib's tab20 in pairs of one strong and one light shade, strong ones first: twenty colours
# a reader tells apart before any repeats
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7",
           "#dbdb8d", "#9edae5"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]
BASIS_LINES = {"on_demand": "-", "spot": "--", "reserved_1y": "-.", "reserved_3y": ":", "owned": (0, (1, 1))}
TITLE_CHARS = 80  # a title line this long (10.8-point: "large" of 9) fits the width beside the left margin
LINE_IN = 0.2  # inches per line of the title, spacing included
LEGEND_ROW_IN = 0.23  # inches per legend row: 7-point text beside its marker, with the rows' spacing
XLABEL_IN = 0.5  # inches under the axes for the tick labels and the x label
# a legend entry's width in pixels: its marker and gap, then about this much per character of
# 7-point text (measured on the widest of DejaVu Sans's common characters, so it never spills)
LEGEND_ENTRY_PX, LEGEND_CHAR_PX = 50, 8.5


def _figure(height: float = SIZE[1], title_lines: int = 1, legend_rows: int = 0, left: float = 0.09) -> Figure:
    """A figure whose margins hold the title's lines above the axes and a legend's rows below them
    (with the x label); `left` leaves room for long tick labels."""
    height += LINE_IN * (title_lines - 1) + LEGEND_ROW_IN * legend_rows
    figure = Figure(figsize=(SIZE[0], height), dpi=DPI)
    FigureCanvasAgg(figure)
    top = 0.16 + LINE_IN * title_lines
    bottom = XLABEL_IN + (LEGEND_ROW_IN * legend_rows + 0.15 if legend_rows else 0.0)
    figure.subplots_adjust(left=left, right=0.98, bottom=bottom / height, top=1 - top / height)
    return figure


def _wrapped(title: str) -> str:
    return "\n".join(line for part in title.split("\n") for line in textwrap.wrap(part, TITLE_CHARS))


def _title(axes, title: str) -> None:
    axes.set_title(title, loc="left")


def _legend_columns(labels: list[str]) -> int:
    """As many columns as the canvas's width holds for the longest label."""
    widest = LEGEND_ENTRY_PX + LEGEND_CHAR_PX * max((len(label) for label in labels), default=0)
    return max(1, min(len(labels), int(SIZE[0] * DPI * 0.95 // widest)))


def _legend_rows(labels: list[str]) -> int:
    return math.ceil(len(labels) / _legend_columns(labels)) if labels else 0


def _legend_below(axes, labels: list[str]) -> None:
    """The legend in rows under the x label, inside the canvas whatever the labels' length."""
    if labels:
        figure = axes.figure
        below_axes = axes.get_position().y0 - XLABEL_IN / figure.get_figheight()
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, below_axes), bbox_transform=figure.transFigure,
                    ncols=_legend_columns(labels), frameon=False)


def _log_axes(axes) -> None:
    axes.set_xscale("log")
    axes.set_yscale("log")
    for axis in (axes.xaxis, axes.yaxis):
        axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.6g}"))
        axis.set_minor_locator(NullLocator())


def _colour(pricing: str) -> str:
    return PRICING_COLOURS.get(pricing, OTHER_COLOUR)


def options_chart(file: str, title: str, options: list[dict], per_mtok: bool, cache: ChartCache | None = None) -> Chart:
    """Every option of a workload against its cost, each price basis's Pareto frontier marked in
    that basis's colour (bases are never mixed into one frontier).

    `options`: rows with time_to_finish_h, usd_total, usd_per_mtok, tokens_per_s, n_gpus, pricing,
    on_frontier, in the order to plot. A job plots its time to finish against its total cost; a
    serving job runs for as long as it is served, so its time cannot vary: it plots tokens/s per
    GPU against USD per million tokens instead.
    """
    cost_key = "usd_per_mtok" if per_mtok else "usd_total"

    def merit(option: dict) -> float | None:
        if not per_mtok:
            return option["time_to_finish_h"]
        return option["tokens_per_s"] / option["n_gpus"] if option.get("n_gpus") else None

    points = settle([(o[cost_key], merit(o), o["pricing"], bool(o["on_frontier"])) for o in options
                     if o[cost_key] is not None and o[cost_key] > 0 and (merit(o) or 0) > 0])
    bases = sorted({p for _, _, p, _ in points})
    frontiers = {pricing: sorted((x, y) for x, y, p, on in points if on and p == pricing) for pricing in bases}

    heading = _wrapped(f"{title}\n(ringed and joined: the Pareto frontier of each price basis)")

    def draw() -> Figure:
        figure = _figure(title_lines=heading.count("\n") + 1)
        axes = figure.add_subplot()
        for pricing in bases:
            xs = [x for x, _, p, _ in points if p == pricing]
            ys = [y for _, y, p, _ in points if p == pricing]
            axes.scatter(xs, ys, s=14, color=_colour(pricing), alpha=0.75, label=pricing, linewidths=0)
            frontier = frontiers[pricing]
            if frontier:
                axes.plot([x for x, _ in frontier], [y for _, y in frontier], color=_colour(pricing), linewidth=1,
                          drawstyle="steps-post")
                axes.scatter([x for x, _ in frontier], [y for _, y in frontier], s=36, facecolors="none",
                             edgecolors="black", linewidths=1)
        _log_axes(axes)
        axes.set_xlabel("USD per million tokens (log)" if per_mtok else "total cost of the job, USD (log)")
        axes.set_ylabel("tokens/s per GPU (log)" if per_mtok else "time to finish, hours (log)")
        _title(axes, heading)
        if points:
            axes.legend(loc="best")
        return figure

    y = "tokens_per_s_per_gpu" if per_mtok else "time_to_finish_h"
    return make_chart(file, title, {"points": points, "frontiers": frontiers, "x": cost_key, "y": y}, draw, cache)


def price_chart(file: str, gpu: str, series: dict[tuple[str, str], list[tuple[date, float]]],
                cache: ChartCache | None = None) -> Chart:
    """USD per GPU-hour over time for one accelerator: a line per provider and price basis.

    `series` maps (provider, pricing) to (observed day, cheapest USD per GPU-hour that day).
    Colour (and, past twenty providers, the marker) says the provider, the line's dash the basis.
    """
    title = f"{gpu}: USD per GPU-hour by provider and price basis"
    lines = {key: settle(list(series[key])) for key in sorted(series)}
    providers = sorted({provider for provider, _ in lines})
    labels = [f"{provider} ({pricing})" for provider, pricing in lines]

    def draw() -> Figure:
        figure = _figure(4.2, legend_rows=_legend_rows(labels))
        axes = figure.add_subplot()
        for label, ((provider, pricing), points) in zip(labels, lines.items(), strict=True):
            index = providers.index(provider)
            axes.plot([d for d, _ in points], [v for _, v in points], drawstyle="steps-post",
                      marker=MARKERS[index // len(PALETTE) % len(MARKERS)], markersize=5,
                      color=PALETTE[index % len(PALETTE)], linestyle=BASIS_LINES.get(pricing, "-"), linewidth=1.2,
                      label=label)
        axes.xaxis.set_major_locator(AutoDateLocator(minticks=3, maxticks=7))
        axes.xaxis.set_major_formatter(DateFormatter("%Y-%m-%d"))
        axes.set_xlabel("observed (UTC date)")
        axes.set_ylabel("USD per GPU-hour")
        axes.set_ylim(bottom=0)
        _title(axes, title)
        _legend_below(axes, labels)
        return figure

    return make_chart(file, title, {"series": lines}, draw, cache)


def backtest_chart(file: str, points: list[dict], p50: float | None, p90: float | None,
                   cache: ChartCache | None = None) -> Chart:
    """Predicted (leave one accelerator out) against measured per-GPU throughput, log-log."""
    title = "Backtest: predicted against measured tokens/s per GPU"
    held_out = [p for p in points if p["loao_factor"] is not None]
    plotted = settle([(p["measured_per_gpu"], p["loao_predicted_per_gpu"], p["kind"]) for p in held_out
                      if p["measured_per_gpu"] > 0 and p["loao_predicted_per_gpu"] > 0])
    p50, p90 = settle(p50), settle(p90)

    def draw() -> Figure:
        figure = _figure()
        axes = figure.add_subplot()
        if plotted:
            low = min(min(m, q) for m, q, _ in plotted) / 2
            high = max(max(m, q) for m, q, _ in plotted) * 2
            line = [low, high]
            axes.plot(line, line, color="black", linewidth=1, label="predicted = measured")
            for band, shade, which in ((p90, 0.12, "90th percentile"), (p50, 0.22, "median")):
                if band is not None:
                    axes.fill_between(line, [v * (1 - min(band, 0.99)) for v in line], [v * (1 + band) for v in line],
                                      color="#1f77b4", alpha=shade, linewidth=0,
                                      label=f"±{100 * band:.0f}% ({which} error)")
            for index, kind in enumerate(sorted({k for _, _, k in plotted})):
                axes.scatter([m for m, _, k in plotted if k == kind], [q for _, q, k in plotted if k == kind],
                             s=18, marker=MARKERS[index % len(MARKERS)], label=kind)
            axes.set_xlim(low, high)
            axes.set_ylim(low, high)
            axes.legend(loc="upper left")
        _log_axes(axes)
        axes.set_xlabel("measured tokens/s per GPU (log)")
        axes.set_ylabel("predicted tokens/s per GPU (log)")
        _title(axes, title)
        return figure

    return make_chart(file, title, {"points": plotted, "p50": p50, "p90": p90}, draw, cache)


def bottleneck_chart(file: str, mix: dict[str, dict[str, int]], cache: ChartCache | None = None) -> Chart:
    """Share of feasible topologies each stage limits, per platform (stacked horizontal bars)."""
    title = "Bottleneck mix per platform (share of feasible topologies)"
    counts = {p: dict(sorted(mix[p].items())) for p in sorted(mix)}
    platforms = sorted(counts, reverse=True)  # barh draws bottom-up: reversed, the list reads a-z
    names = sorted({b for per_platform in counts.values() for b in per_platform})

    def draw() -> Figure:
        figure = _figure(max(3.0, 0.9 + 0.28 * len(platforms)), legend_rows=_legend_rows(names), left=0.17)
        axes = figure.add_subplot()
        left = [0.0] * len(platforms)
        for index, name in enumerate(names):
            shares = [100 * counts[p].get(name, 0) / max(1, sum(counts[p].values())) for p in platforms]
            axes.barh(platforms, shares, left=left, color=PALETTE[index % len(PALETTE)], label=name, height=0.7)
            left = [a + b for a, b in zip(left, shares, strict=True)]
        axes.set_xlim(0, 100)
        axes.set_xlabel("share of feasible topologies, % (all workloads and GPU counts)")
        axes.set_ylabel("platform")
        _title(axes, title)
        axes.grid(axis="y", visible=False)
        _legend_below(axes, names)
        return figure

    return make_chart(file, title, {"mix": counts}, draw, cache)


def curve_chart(file: str, title: str, lines: dict[str, list[tuple[float, float, float]]],
                cache: ChartCache | None = None) -> Chart:
    """A serving job's interactivity curve: per platform, USD per million tokens (above) and tokens/s
    served per GPU of the fleet (below) against tokens/s per user, each point the fleet that meets
    that TPOT.

    `lines` maps a platform to its (tokens/s per user, USD per million tokens, tokens/s per GPU)
    points, in rate order. Each platform is one colour and marker in both panels, named in the
    legend below them.
    """
    plotted = {platform: settle(points) for platform, points in sorted(lines.items())}
    labels = list(plotted)
    heading = _wrapped(title)

    def draw() -> Figure:
        figure = _figure(7.0, title_lines=heading.count("\n") + 1, legend_rows=_legend_rows(labels), left=0.11)
        cost, rate = figure.subplots(2, 1, sharex=True)
        for index, (platform, points) in enumerate(plotted.items()):
            style = {"color": PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)],
                     "markersize": 5, "linewidth": 1.4}
            cost.plot([u for u, _, _ in points], [c for _, c, _ in points], **style)
            rate.plot([u for u, _, _ in points], [g for _, _, g in points], label=platform, **style)
        for axes, label in ((cost, "USD per million tokens (log)"), (rate, "tokens/s served per GPU (log)")):
            axes.set_yscale("log")
            axes.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.6g}"))
            axes.yaxis.set_minor_locator(NullLocator())
            axes.set_ylabel(label)
        rate.set_xlabel("tokens/s per user (TPOT = 1000 / that, ms)")
        _title(cost, heading)
        _legend_below(rate, labels)
        return figure

    return make_chart(file, title, {"lines": plotted}, draw, cache)
