"""The report's four kinds of chart, drawn with matplotlib on the Agg canvas (chart_png.py makes
the PNG, deterministic and reusable). Each returns a `Chart` whose `data` is what it plotted,
in a fixed order, so a test can hold it against the warehouse.

No pyplot (no global figure state, no interactive backend), a fixed size and fixed margins
(not tight_layout), plain-text log ticks at 1-2-5 steps (mathtext labels and minor ticks
multiply the drawing time, docs/scale.md), and one colour per price basis in every chart.
"""

from __future__ import annotations

from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import DateFormatter
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from reports.chart_png import DPI, Chart, ChartCache, make_chart, settle

SIZE = (8.0, 4.6)  # inches: 800 x 460 px at DPI, readable on a phone at full width
PRICING_COLOURS = {  # one colour per price basis, the same in every chart
    "on_demand": "#1f77b4", "spot": "#ff7f0e", "reserved_1y": "#2ca02c", "reserved_3y": "#17becf",
    "owned": "#7f7f7f",
}
OTHER_COLOUR = "#d62728"
BOTTLENECK_PALETTE = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
                      "#ccb974", "#64b5cd"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]


def _figure(height: float = SIZE[1], right: float = 0.98, left: float = 0.09) -> Figure:
    """A figure with fixed margins; `right` < 1 leaves room for a legend outside the axes, `left` for long labels."""
    figure = Figure(figsize=(SIZE[0], height), dpi=DPI)
    FigureCanvasAgg(figure)
    figure.subplots_adjust(left=left, right=right, bottom=0.5 / height, top=1 - 0.32 / height)
    return figure


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
    """Time to finish against cost for every option of a workload, each price basis's Pareto
    frontier marked in that basis's colour (bases are never mixed into one frontier).

    `options`: rows with time_to_finish_h, usd_total, usd_per_mtok, pricing, on_frontier, in the
    order to plot. Serving plots USD per million tokens (proportional to the job's cost there).
    """
    cost_key = "usd_per_mtok" if per_mtok else "usd_total"
    points = settle([(o[cost_key], o["time_to_finish_h"], o["pricing"], bool(o["on_frontier"])) for o in options
                     if o[cost_key] is not None and o[cost_key] > 0 and o["time_to_finish_h"] > 0])
    bases = sorted({p for _, _, p, _ in points})
    frontiers = {pricing: sorted((x, y) for x, y, p, on in points if on and p == pricing) for pricing in bases}

    def draw() -> Figure:
        figure = _figure()
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
        axes.set_ylabel("time to finish, hours (log)")
        axes.set_title(f"{title}\n(ringed and joined: the Pareto frontier of each price basis)")
        if points:
            axes.legend(loc="upper right")
        return figure

    return make_chart(file, title, {"points": points, "frontiers": frontiers, "x": cost_key}, draw, cache)


def price_chart(file: str, gpu: str, series: dict[tuple[str, str], list[tuple[date, float]]],
                cache: ChartCache | None = None) -> Chart:
    """USD per GPU-hour over time for one accelerator: a line per provider and price basis.

    `series` maps (provider, pricing) to (observed day, cheapest USD per GPU-hour that day).
    Colour says the price basis, the marker the provider.
    """
    title = f"{gpu}: USD per GPU-hour by provider and price basis"
    lines = {key: settle(list(series[key])) for key in sorted(series)}
    providers = sorted({provider for provider, _ in lines})

    def draw() -> Figure:
        figure = _figure(4.2, right=0.7)
        axes = figure.add_subplot()
        for (provider, pricing), points in lines.items():
            axes.plot([d for d, _ in points], [v for _, v in points], drawstyle="steps-post",
                      marker=MARKERS[providers.index(provider) % len(MARKERS)], markersize=5,
                      color=_colour(pricing), linewidth=1, label=f"{provider} ({pricing})")
        axes.xaxis.set_major_formatter(DateFormatter("%Y-%m-%d"))
        axes.set_xlabel("observed (UTC date)")
        axes.set_ylabel("USD per GPU-hour")
        axes.set_ylim(bottom=0)
        axes.set_title(title)
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), ncols=1 if len(lines) <= 16 else 2)
        axes.tick_params(axis="x", labelrotation=20)
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
        axes.set_title(title)
        return figure

    return make_chart(file, title, {"points": plotted, "p50": p50, "p90": p90}, draw, cache)


def bottleneck_chart(file: str, mix: dict[str, dict[str, int]], cache: ChartCache | None = None) -> Chart:
    """Share of feasible topologies each stage limits, per platform (stacked horizontal bars)."""
    title = "Bottleneck mix per platform (share of feasible topologies)"
    counts = {p: dict(sorted(mix[p].items())) for p in sorted(mix)}
    platforms = sorted(counts, reverse=True)  # barh draws bottom-up: reversed, the list reads a-z
    names = sorted({b for per_platform in counts.values() for b in per_platform})

    def draw() -> Figure:
        figure = _figure(max(3.0, 0.9 + 0.28 * len(platforms)), right=0.74, left=0.17)
        axes = figure.add_subplot()
        left = [0.0] * len(platforms)
        for index, name in enumerate(names):
            shares = [100 * counts[p].get(name, 0) / max(1, sum(counts[p].values())) for p in platforms]
            axes.barh(platforms, shares, left=left, color=BOTTLENECK_PALETTE[index % len(BOTTLENECK_PALETTE)],
                      label=name, height=0.7)
            left = [a + b for a, b in zip(left, shares, strict=True)]
        axes.set_xlim(0, 100)
        axes.set_xlabel("share of feasible topologies, % (all workloads and GPU counts)")
        axes.set_ylabel("platform")
        axes.set_title(title)
        axes.grid(axis="y", visible=False)
        if names:
            axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
        return figure

    return make_chart(file, title, {"mix": counts}, draw, cache)
