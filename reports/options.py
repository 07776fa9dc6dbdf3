"""What an option table shows: its order and columns. Pages call these; they own no layout.

Kept apart so the columns (e.g. a price basis beside every figure) can change without
touching the page machinery.
"""

from __future__ import annotations

import math

import polars as pl

from reports.changes import basis_rank, ranked
from reports.front_table import BASIS_WORDS, fleet, time_unit
from reports.markdown import table
from warehouse.questions.plain_text import fmt_pct

RANK_ORDER = ["usd_total", "time_to_finish_h"]  # cheapest first; ties: faster, then OPTION_KEY


def split(option: dict) -> str:
    """The layout split in words: tensor/pipeline/data parallel, replicas and batch, or the roles."""
    if option.get("producers") is not None:
        if option["producers"] == option["consumers"] == option["n_gpus"]:
            return f"target and drafter on each of the {option['n_gpus']} GPUs"
        return f"{option['producers']} target + {option['consumers']} drafter"
    parts = [f"TP{option['tp']}", f"PP{option['pp']}"]
    if option["kind"] == "serving":
        parts.append(f"{option['dp']} replica{'s' if option['dp'] != 1 else ''}, batch {option['batch']}")
    else:
        parts.append(f"DP{option['dp']}")
    return " ".join(parts)


def ranked_options(options: pl.DataFrame) -> pl.DataFrame:
    """Every option, cheapest first, numbered, with its split spelled out."""
    frame = ranked(options, RANK_ORDER)
    return frame.with_columns(
        pl.Series("rank", range(1, frame.height + 1)),
        pl.Series("split", [split(row) for row in frame.iter_rows(named=True)], dtype=pl.String),
    )


def basis_tables(options: pl.DataFrame, platforms: pl.DataFrame, serving: bool) -> list[tuple[str, str]]:
    """(basis in words, its table) per price basis, in the front page's basis order: each basis's
    options cheapest first, cost first, the fleet in words, figures to what their band supports and
    times in one unit per table."""
    if options.height == 0:
        return []
    shaped = options.join(platforms, on="platform_id", how="left") if platforms.height else options
    out = []
    for basis in sorted(shaped["pricing"].unique().to_list(), key=basis_rank):
        rows = ranked_options(shaped.filter(pl.col("pricing") == basis))
        unit, per = time_unit(rows["time_to_finish_h"].to_list())
        cells = pl.DataFrame([_cells(r, per, serving) for r in rows.iter_rows(named=True)],
                             schema=dict.fromkeys(CELLS, pl.String), orient="row")
        columns = {"rank": ("#", None), "cost": ("total cost", None)}
        if serving:
            columns["per_mtok"] = ("$/M tokens", None)
        columns |= {"time": (f"time ({unit})", None), "fleet": ("platform and GPUs", None),
                    "provider": ("provider", None), "layout": ("layout", None),
                    "bottleneck": ("bottleneck", None),
                    "tokens_per_s": ("tokens/s per GPU" if serving else "tokens/s", None),
                    "band": ("± (median)", None),
                    "instance": ("instance", None), "region": ("region", None), "pareto": ("Pareto", None)}
        out.append((BASIS_WORDS.get(basis, basis), table(cells, columns)))
    return out


# The cells of one row of a basis table, all text (numbers already rounded to their band).
CELLS = ("rank", "cost", "per_mtok", "time", "fleet", "provider", "layout", "bottleneck", "tokens_per_s", "band",
         "instance", "region", "pareto")


def _cells(row: dict, hours_per_unit: float, serving: bool) -> list[str]:
    figures = significant_figures(row.get("error_p50"))
    time = row["time_to_finish_h"]
    # a serving row's rate is its modelled system's (one replica or several, n_gpus in all), while
    # its fleet is sized to the demand: per GPU the two compare
    rate = row.get("tokens_per_s")
    if rate is not None and serving and row.get("n_gpus"):
        rate = rate / row["n_gpus"]
    return [
        str(row["rank"]), _usd(row["usd_total"], figures), _usd(row.get("usd_per_mtok"), figures),
        rounded(time / hours_per_unit, figures) if time is not None else "",
        fleet(row) if row.get("gpu_id") else f"{row['n_gpus']}x {row['platform_id']}",
        row["provider"] or "", row["layout"] or "", row["bottleneck"] or "",
        rounded(rate, figures) if rate is not None else "",
        fmt_pct(row["error_p50"]) if row.get("error_p50") is not None else "no band",
        row["instance_type"] or "", row["region"] or "", "yes" if row["on_frontier"] else "",
    ]


def significant_figures(band: float | None) -> int:
    """How many figures an estimate of this median error supports: 2 at ±10% or wider (or no band), else 3."""
    return 2 if band is None or band >= 0.1 else 3


def rounded(value: float, figures: int) -> str:
    """`value` to `figures` significant figures, thousands grouped ('12,000', '2.9', '0.0041')."""
    if value is None or value != value:
        return ""
    if value == 0:
        return "0"
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    value = round(value, digits)
    digits = figures - 1 - math.floor(math.log10(abs(value))) if value else 0  # 9.96 became 10.0
    return f"{value:,.{max(0, digits)}f}"


def _usd(value: float | None, figures: int) -> str:
    return "" if value is None else f"${rounded(value, figures)}"
