"""The two questions gpucalc grew from, answered on the morning report's front page right under
their jobs' tables, which lead it, from the night's own options (issue 35, item 8; ../shared/seeds/).

1. DFlash drafter training: would as many B200s as the measured run's RTX PRO 6000s train it
   faster and cheaper? Per price basis: time and cost against the run, the range the estimate's
   band allows, and the GPU-hour price below which it would cost less than the run did.
2. DeepSeek-R1 serving at the job's demand and latency limits: GB200 NVL72 against HGX B200 per
   price basis, the managed API beside them, whether a gap is the platforms' or two providers'
   prices, and, where the night kept it, the interactivity curve: where the cheaper platform
   changes with tokens/s per user.
"""

from __future__ import annotations

import polars as pl

from reports import chart_set
from reports.changes import basis_rank
from reports.context import NightData
from reports.front_table import BASIS_WORDS, fleet, time_unit
from reports.markdown import code, escape, image, table
from sources.kit.contracts import MARKET_PRICING
from warehouse.questions.decision_ranges import per_rate_range, rate_range
from warehouse.questions.plain_text import fmt_usd
from warehouse.questions.sweep import costs_by_rate, segment_text, segments

TRAINING_JOB, TRAINING_CANDIDATE = "dflash-qwen36-27b", "hgx-b200-8"
SERVING_JOB, SERVING_PLATFORMS = "deepseek-r1-mtp", ("gb200-nvl72", "hgx-b200-8")


def answer(data: NightData, workload_id: str) -> list[str]:
    """The seed question a job's front table is followed by (the seed jobs lead the page), or
    nothing for any other job or where the night lacks what the question needs."""
    if workload_id == TRAINING_JOB:
        return _training(data)
    if workload_id == SERVING_JOB:
        return _serving(data)
    return []


def _shaped(data: NightData, workload_id: str) -> pl.DataFrame:
    options = data.options_of(workload_id)
    return options.join(data.platforms, on="platform_id", how="left") if data.platforms.height else options


def _cheapest(options: pl.DataFrame, by: str) -> dict[str, dict]:
    """Per price basis, its cheapest option by `by` (ties: faster, then provider)."""
    out: dict[str, dict] = {}
    for row in options.sort([by, "time_to_finish_h", "provider"], nulls_last=True).iter_rows(named=True):
        if row[by] is not None:
            out.setdefault(row["pricing"], row)
    return dict(sorted(out.items(), key=lambda kv: basis_rank(kv[0])))


def _training(data: NightData) -> list[str]:
    tonight, _ = data.front_of(TRAINING_JOB)  # the decisions with their platforms' shapes
    base = next((r for r in tonight.iter_rows(named=True) if r["choice"] == "measured run"), None) \
        if tonight.height else None
    if base is None or not base.get("usd_total") or not base.get("time_to_finish_h"):
        return []
    options = _shaped(data, TRAINING_JOB).filter((pl.col("platform_id") == TRAINING_CANDIDATE)
                                                 & (pl.col("n_gpus") == base["n_gpus"]))
    rows = _cheapest(options, "usd_total")
    if not rows:
        return []
    unit, per = time_unit([base["time_to_finish_h"], *(r["time_to_finish_h"] for r in rows.values())])
    cells = [{"basis": BASIS_WORDS.get(b, b), "fleet": fleet(r), "provider": r["provider"],
              "time": f"{r['time_to_finish_h'] / per:.1f}", "cost": fmt_usd(r["usd_total"]),
              "against": against_run(r, base), "below": _break_even(r, base)} for b, r in rows.items()]
    columns = {"basis": ("basis", None), "fleet": ("platform and GPUs", None), "provider": ("provider", None),
               "time": (f"time ({unit})", None), "cost": ("total cost", None),
               "against": ("against the run", None), "below": ("cheaper than the run below", None)}
    faster = all(r["time_to_finish_h"] < base["time_to_finish_h"] for r in rows.values())
    unbanded = [BASIS_WORDS.get(b, b) for b, r in rows.items() if r.get("error_p90") is None]
    guess = (f" No held-out result checks the {', '.join(unbanded)} estimates: they are a wide guess."
             if unbanded else "")
    cheaper = [BASIS_WORDS.get(b, b) for b, r in rows.items() if r["usd_total"] < base["usd_total"]]
    verdict = (("Faster on every basis" if faster else "Not faster on every basis")
               + (f"; cheaper than the run on {', '.join(cheaper)}" if cheaper else "; cheaper on no basis")
               + " tonight." + guess)
    return [
        f"#### Seed question: would {base['n_gpus']}x B200 train the DFlash drafter faster and cheaper?\n",
        escape(f"The measured run: {fleet(base)}, {base['time_to_finish_h'] / per:.1f} {unit}, "
               f"{fmt_usd(base['usd_total'])} priced as owning its system. Against it, the same number of "
               f"B200s at each basis's cheapest quote tonight (their times include the night's allowance for "
               "failed and repeated work; ") + code("gpucalc whatif")
        + " compares steady rates), and the price per GPU-hour below which they would cost what the run cost.\n",
        table(pl.DataFrame(cells, schema=dict.fromkeys(columns, pl.String)), columns),
        escape(verdict) + "\n",
    ]


def against_run(row: dict, base: dict) -> str:
    """The option against the measured run: how much faster, what share of the cost, and the range
    the estimate's p90 band allows (throughput within ±p90 moves both)."""
    speed = base["time_to_finish_h"] / row["time_to_finish_h"]
    cost = row["usd_total"] / base["usd_total"]
    said = f"{speed:.1f}x as fast, {cost:.2f}x the cost"
    band = row.get("error_p90")
    if band is None:  # the table's caption says it once
        return said
    slowest, fastest = rate_range(speed, band)
    cheapest, dearest = per_rate_range(cost, band)
    if dearest is None:
        return said + (f" (within ±{band:.0%}: up to {fastest:.1f}x as fast, from "
                       f"{cheapest:.2f}x the cost, with no upper bound)")
    return (said + f" (range {slowest:.1f}-{fastest:.1f}x as fast, "
            f"{cheapest:.2f}-{dearest:.2f}x the cost at ±{band:.0%})")


def _break_even(row: dict, base: dict) -> str:
    """The GPU-hour price at which the option's cost equals the run's (cost is linear in the price)."""
    if row["pricing"] not in MARKET_PRICING or not row.get("usd_per_gpu_hour"):
        return ""
    price = row["usd_per_gpu_hour"] * base["usd_total"] / row["usd_total"]
    return f"{fmt_usd(price)}/GPU-h (tonight {fmt_usd(row['usd_per_gpu_hour'])})"


def _serving(data: NightData) -> list[str]:
    options = _shaped(data, SERVING_JOB)
    sides = {p: _cheapest(options.filter(pl.col("platform_id") == p), "usd_per_mtok") for p in SERVING_PLATFORMS}
    if not all(sides.values()):
        return []
    a, b = SERVING_PLATFORMS
    cells = []
    for basis in sorted(set(sides[a]) | set(sides[b]), key=basis_rank):
        ra, rb = sides[a].get(basis), sides[b].get(basis)
        ratio = f"{ra['usd_per_mtok'] / rb['usd_per_mtok']:.2f}x" if ra and rb else ""
        cells.append({"basis": BASIS_WORDS.get(basis, basis), "a": _serving_cell(ra), "b": _serving_cell(rb),
                      "ratio": ratio, "why": _gap_words(ra, rb)})
    names = {p: data.platforms.filter(pl.col("platform_id") == p)["platform_name"].to_list() or [p]
             for p in SERVING_PLATFORMS} if data.platforms.height else {p: [p] for p in SERVING_PLATFORMS}
    columns = {"basis": ("basis", None), "a": (f"{names[a][0]}: $/M tokens, fleet, provider", None),
               "b": (f"{names[b][0]}: $/M tokens, fleet, provider", None),
               "ratio": (f"{a} against {b}", None), "why": ("the gap is", None)}
    api = next((r for r in data.decisions_of(SERVING_JOB).iter_rows(named=True) if r["pricing"] == "api"), None)
    out = ["#### Seed question: GB200 NVL72 or HGX B200 for this job?\n",
           table(pl.DataFrame(cells, schema=dict.fromkeys(columns, pl.String)), columns)]
    if api is not None:
        out.append(escape(f"The managed API beside them: {api['provider']} at {fmt_usd(api['usd_per_mtok'])} per "
                          f"million output tokens (published price of {api['api_observed_at']}).") + "\n")
    out += curve_lines(data, SERVING_JOB)
    out.append(
        "Where the two cheapest rows come from two providers, part of the gap is their prices: "
        + code(f"gpucalc compare {SERVING_JOB} --platforms {a},{b}") + " sets both at every provider that prices "
        "both, and " + code(f"gpucalc compare {SERVING_JOB} --platforms {a},{b} --sweep") + " adds the curve at "
        "every provider that prices both.\n")
    return out


def curve_lines(data: NightData, workload_id: str) -> list[str]:
    """The job's interactivity curve as the night kept it: where the cheaper platform changes, in
    words, and the chart; nothing where the night kept none."""
    points = data.curve_of(workload_id)
    basis = chart_set.curve_basis(points)
    if basis is None:
        return []
    rows = points.to_dicts()
    rates = tuple(sorted({r["tokens_per_s_per_user"] for r in rows if r["pricing"] == basis}))
    said = segment_text(segments(costs_by_rate(rows, basis), rates), rates)
    out = [escape(f"Against tokens/s per user ({BASIS_WORDS.get(basis, basis)}, each platform at its cheapest "
                  f"provider, the demand and TTFT kept): {said}.") + "\n"]
    chart = chart_set.curve_chart_file(workload_id)
    if chart in data.charts:
        out.append(f"{image(data.charts[chart].title, chart)}\n")
    return out


def _serving_cell(row: dict | None) -> str:
    if row is None:
        return "no fleet meets it"
    return escape(f"{fmt_usd(row['usd_per_mtok'])}: {fleet(row)}, {row['provider']}")


def _gap_words(a: dict | None, b: dict | None) -> str:
    if a is None or b is None or a["pricing"] == "owned":
        return "the ownership model's costs" if a and a["pricing"] == "owned" else ""
    if a["provider"] == b["provider"]:
        return escape(f"the platforms' (one provider, {a['provider']})")
    return escape(f"partly the providers' ({a['provider']} against {b['provider']})")
