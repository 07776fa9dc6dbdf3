"""Charts are deterministic PNGs that carry the digest of what they show, and are reused by it."""

from datetime import date

import pytest
from matplotlib.text import Text

from reports import chart_png, charts

OPTIONS = [
    {"usd_total": 100.0, "usd_per_mtok": 1.0, "time_to_finish_h": 10.0, "pricing": "on_demand", "on_frontier": False},
    {"usd_total": 80.0, "usd_per_mtok": 0.8, "time_to_finish_h": 12.0, "pricing": "spot", "on_frontier": True},
    {"usd_total": 300.0, "usd_per_mtok": 3.0, "time_to_finish_h": 2.0, "pricing": "owned", "on_frontier": True},
]


@pytest.fixture(autouse=True)
def own_cache(monkeypatch, tmp_path):
    """Each test its own cache of drawn charts (warehouse/store/cache.py), empty at the start."""
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "charts"


def test_the_same_data_draws_the_same_bytes_and_last_bit_noise_does_not_matter(monkeypatch):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")  # both drawn
    first = charts.options_chart("c.png", "t", OPTIONS, per_mtok=False)
    noisy = [dict(o, usd_total=o["usd_total"] * (1 + 1e-15)) for o in OPTIONS]
    second = charts.options_chart("c.png", "t", noisy, per_mtok=False)
    assert first.png == second.png and first.drawn and second.drawn
    assert first.data["frontiers"] == {"on_demand": [], "spot": [(80.0, 12.0)], "owned": [(300.0, 2.0)]}
    assert len(first.data["points"]) == 3
    text = chart_png.png_text(first.png)
    assert text == {chart_png.DIGEST_KEY: first.digest}  # no "Software", no date: nothing that changes by itself
    other = charts.options_chart("c.png", "t", OPTIONS[:2], per_mtok=False)
    assert other.digest != first.digest


def test_a_chart_whose_data_did_not_change_is_reused_not_drawn(tmp_path):
    series = {("aws", "on_demand"): [(date(2026, 1, 1), 3.0), (date(2026, 1, 2), 3.5)]}
    drawn = charts.price_chart("p.png", "H100-SXM", series)
    (tmp_path / "p.png").write_bytes(drawn.png)
    cache = chart_png.ChartCache([tmp_path / "missing", tmp_path])
    again = charts.price_chart("p.png", "H100-SXM", series, cache)
    assert not again.drawn and again.png == drawn.png
    changed = charts.price_chart("p.png", "H100-SXM", {("aws", "on_demand"): [(date(2026, 1, 1), 3.1)]}, cache)
    assert changed.drawn and changed.png != drawn.png


def test_a_chart_drawn_once_is_reused_from_the_cache_by_any_later_build(own_cache):
    series = {("aws", "on_demand"): [(date(2026, 1, 1), 3.0), (date(2026, 1, 2), 3.5)]}
    drawn = charts.price_chart("p.png", "H100-SXM", series)
    assert drawn.drawn and (own_cache / drawn.digest).read_bytes() == drawn.png
    again = charts.price_chart("p.png", "H100-SXM", series, chart_png.ChartCache([]))
    assert not again.drawn and again.png == drawn.png
    (own_cache / drawn.digest).write_bytes(drawn.png[:100])  # damaged: its digest no longer reads back
    redrawn = charts.price_chart("p.png", "H100-SXM", series)
    assert redrawn.drawn and redrawn.png == drawn.png


def test_backtest_and_bottleneck_charts_return_what_they_plot():
    points = [{"measured_per_gpu": 100.0, "loao_predicted_per_gpu": 110.0, "loao_factor": 1.1, "kind": "serving"},
              {"measured_per_gpu": 50.0, "loao_predicted_per_gpu": 50.0, "loao_factor": None, "kind": "pretrain"}]
    backtest = charts.backtest_chart("b.png", points, 0.1, 0.2)
    assert backtest.data["points"] == [(100.0, 110.0, "serving")]  # no factor learnt: not a prediction
    mix = charts.bottleneck_chart("m.png", {"p2": {"compute": 3}, "p1": {"memory": 1, "compute": 1}})
    assert mix.data["mix"] == {"p1": {"compute": 1, "memory": 1}, "p2": {"compute": 3}}
    assert backtest.png[:8] == mix.png[:8] == b"\x89PNG\r\n\x1a\n"


def _drawn_figure(monkeypatch, make):
    """The matplotlib figure a chart function draws, laid out as it is saved."""
    figures = []
    monkeypatch.setattr(charts, "make_chart", lambda file, title, data, draw, cache: figures.append(draw()))
    make()
    (figure,) = figures
    figure.canvas.draw()
    return figure


def _inside(figure, artist) -> bool:
    box = artist.get_window_extent(figure.canvas.get_renderer())
    return 0 <= box.x0 and box.x1 <= figure.bbox.width and 0 <= box.y0 and box.y1 <= figure.bbox.height


LONG_TITLE = "deepseek-r1-interactive-with-a-long-name: tokens/s per GPU against USD per million tokens, by price basis"
PROVIDERS = [f"provider-number-{i:02d}" for i in range(22)]


@pytest.mark.parametrize("make", [
    lambda: charts.options_chart("o.png", LONG_TITLE, OPTIONS, per_mtok=False),
    lambda: charts.price_chart("p.png", "H100-SXM", {(p, basis): [(date(2026, 1, 1), 2.0), (date(2026, 3, 1), 2.5)]
                                                     for p in PROVIDERS for basis in ("on_demand", "spot")}),
    lambda: charts.backtest_chart("b.png", [{"measured_per_gpu": 100.0, "loao_predicted_per_gpu": 110.0,
                                             "loao_factor": 1.1, "kind": "serving"}], 0.1, 0.2),
    lambda: charts.bottleneck_chart("m.png", {"hgx-h100-8": {f"a long bottleneck name {i}": i + 1 for i in range(14)}}),
    lambda: charts.curve_chart("c.png", LONG_TITLE, {f"platform-with-a-long-id-{i}": [(10.0, 0.5, 7000.0),
                                                                                      (150.0, 20.0, 80.0)]
                                                     for i in range(9)}),
], ids=["options", "price", "backtest", "bottleneck", "curve"])
def test_every_chart_keeps_its_title_and_legend_inside_the_canvas(monkeypatch, make):
    figure = _drawn_figure(monkeypatch, make)
    first, last = figure.axes[0], figure.axes[-1]  # the curve's two panels: title above, legend below
    title = first.get_title(loc="left")
    (heading,) = [text for text in figure.findobj(Text) if text.get_text() == title and title]
    assert _inside(figure, heading)
    legend = last.get_legend()
    assert legend is not None and _inside(figure, legend)


def test_providers_and_bottlenecks_each_get_their_own_colour(monkeypatch):
    series = {(p, "on_demand"): [(date(2026, 1, 1), 2.0), (date(2026, 1, 2), 2.5)] for p in PROVIDERS[:20]}
    figure = _drawn_figure(monkeypatch, lambda: charts.price_chart("p.png", "H100-SXM", series))
    assert len({line.get_color() for line in figure.axes[0].get_lines()}) == 20
    mix = {"hgx-h100-8": {f"stage {i:02d}": 1 for i in range(15)}}
    figure = _drawn_figure(monkeypatch, lambda: charts.bottleneck_chart("m.png", mix))
    assert len({patch.get_facecolor() for patch in figure.axes[0].patches}) == 15


def test_a_serving_chart_plots_tokens_per_gpu_against_cost_not_a_time_that_cannot_vary():
    rows = [dict(o, tokens_per_s=tokens, n_gpus=8) for o, tokens in zip(OPTIONS, (800.0, 1600.0, 4000.0), strict=True)]
    chart = charts.options_chart("s.png", "t", rows, per_mtok=True)
    assert chart.data["y"] == "tokens_per_s_per_gpu"
    assert [(x, y) for x, y, _, _ in chart.data["points"]] == [(1.0, 100.0), (0.8, 200.0), (3.0, 500.0)]
