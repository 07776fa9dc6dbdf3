"""The leave-one-accelerator-out backtest's figures: its errors per kind, accelerator and
workload, the model beside a naive baseline and the stated bands' coverage per class
(backtest_baseline), and the calibration levels it trusts; and the leave-one-model-family-out
backtest's errors per kind and class, with or without other families' factors (backtest_family).
`gpucalc backtest` prints them (backtest_text.py) or, with --json, gives them as they are (errors
as fractions)."""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.store.db import objects
from warehouse.store.sql_text import sql_text

# title -> the backtest column its errors are grouped by
GROUPS = {
    "per workload kind": "kind",
    "per accelerator held out": "gpu_id",
    "per workload": "workload_id",
}

# title -> (the backtest_baseline expression rows are grouped by, the expression they are ordered by)
BASELINE_GROUPS = {
    "every point": ("'every point'", "0"),
    "per class": ("class", "class_order"),
    "per workload kind": ("scenario_kind", "scenario_kind"),
    # how far each prediction extrapolates: the calibration level it reached without its own GPU
    "per calibration level": ("regexp_replace(band_basis, '^calibrated: ', '')", "band_level"),
}

BASELINE_RULE = (
    "for each held-out point, the nearest measured result of the same workload (model and scenario) "
    "on another accelerator: the same GPU count first, then H100-SXM, then the nearest GPU count, "
    "then the accelerator the ratio moves least (several results of one accelerator at one count: "
    "their geometric mean); its tokens/s per GPU scaled by the ratio of the held-out GPU's spec to "
    "the neighbour's"
)
SCALED_BY = {
    "training, role pipelines": "dense peak FLOP/s (spec sheet) at the precision each ran in",
    "serving, prompts >= outputs (prefill-heavy)": "dense peak FLOP/s (spec sheet) at the precision each ran in",
    "serving, outputs > prompts (decode-bound)": "memory bandwidth per byte of weight at the precision each ran in",
}
COVERAGE_RULE = (
    "the share of held-out points whose error |predicted - measured| / measured is within the band "
    "its estimate would state: error_p50 and error_p90 of error_band_class for its workload kind and "
    "class at the level the prediction used (0: uncalibrated), the figures `gpucalc predict` gives beside each "
    "prediction; aim 45-60% (p50) and 85-95% (p90)"
)


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def figures(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """Every figure `gpucalc backtest` prints, from a rebuilt warehouse."""
    groups = {
        title: _rows(con, sql_text("warehouse.questions", "backtest_errors.sql", column=column))
        for title, column in GROUPS.items()
    }
    baseline = {
        title: _rows(con, sql_text("warehouse.questions", "backtest_baseline.sql", grouped=name, ranked=rank))
        for title, (name, rank) in BASELINE_GROUPS.items()
    }
    levels = _rows(
        con,
        """select kind, level, points, median_ape, median_default_ape, trusted from calibration_trust
           where workload_id is null order by kind, level""",
    )
    overall = _rows(
        con,
        """select count(*) as points, quantile_cont(loao_ape, 0.5) as median_ape,
                  quantile_cont(loao_ape, 0.9) as p90_ape from backtest""",
    )[0]
    # a warehouse rebuilt by an older gpucalc has no family backtest
    family_sql = sql_text("warehouse.questions", "backtest_family.sql")
    families = _rows(con, family_sql) if "family_trust" in objects(con) else []
    rounds = (_rows(con, sql_text("warehouse.questions", "backtest_round.sql"))
              if "backtest_round" in objects(con) else [])
    return {
        "errors": groups,
        "baseline_rule": BASELINE_RULE,
        "baseline_scaled_by": SCALED_BY,
        "coverage_rule": COVERAGE_RULE,
        "baseline_and_coverage": baseline,
        "calibration_levels": levels,
        "leave_one_family_out": families,
        "leave_latest_round_out": rounds,
        "overall": overall,
    }
