"""Validation suites (great-expectations 1.x) for every incoming table.

Each suite checks one staged batch and returns, per rule it breaks, the rows that break it.
GX validates pandas frames (it has no Polars or DuckDB engine that works today), so the
batch is copied to pandas for the check; the rows themselves stay in Polars.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import polars as pl

from sources.contracts import (
    BENCHMARK_KEY,
    BENCHMARK_METRICS,
    BENCHMARK_REQUIRED,
    MAX_USD_PER_GPU_HOUR,
    PRICE_KEY,
    PRICE_REQUIRED,
    PRICING_MODELS,
)

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")


@dataclass(frozen=True)
class Rule:
    """One expectation and how to explain a row that breaks it."""

    name: str
    expectation: object
    explain: str  # format string over the row's columns, e.g. "price {usd_per_gpu_hour}"


@dataclass(frozen=True)
class Violation:
    row_index: int
    rule: str
    detail: str


class MissingColumns(Exception):
    def __init__(self, table: str, missing: list[str]):
        super().__init__(f"{table}: required columns missing: {', '.join(missing)}")
        self.missing = missing


@lru_cache(maxsize=1)
def _context():
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    ctx = gx.get_context(mode="ephemeral")
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    batch_definition = (
        ctx.data_sources.add_pandas("staged").add_dataframe_asset("batch").add_batch_definition_whole_dataframe("whole")
    )
    return ctx, batch_definition


def _not_null(columns) -> list[Rule]:
    import great_expectations as gx

    return [
        Rule(f"required_{c}", gx.expectations.ExpectColumnValuesToNotBeNull(column=c), f"{c} is missing")
        for c in columns
    ]


def price_rules(known_aliases: list[str]) -> list[Rule]:
    import great_expectations as gx

    e = gx.expectations
    return [
        *_not_null(PRICE_REQUIRED),
        Rule(
            "price_per_gpu_hour_range",
            e.ExpectColumnValuesToBeBetween(
                column="usd_per_gpu_hour", min_value=0, max_value=MAX_USD_PER_GPU_HOUR, strict_min=True
            ),
            f"usd_per_gpu_hour {{usd_per_gpu_hour}} is not in (0, {MAX_USD_PER_GPU_HOUR:g}]",
        ),
        Rule(
            "gpus_per_instance_range",
            e.ExpectColumnValuesToBeBetween(column="gpus_per_instance", min_value=0, max_value=1024, strict_min=True),
            "gpus_per_instance {gpus_per_instance} is not in (0, 1024]",
        ),
        Rule(
            "known_pricing_model",
            e.ExpectColumnValuesToBeInSet(column="pricing", value_set=list(PRICING_MODELS)),
            f"pricing '{{pricing}}' is not one of {', '.join(PRICING_MODELS)}",
        ),
        Rule(
            "currency_usd",
            e.ExpectColumnValuesToBeInSet(column="currency", value_set=["USD"]),
            "currency '{currency}' is not USD",
        ),
        Rule(
            "unknown_gpu",
            e.ExpectColumnValuesToBeInSet(column="gpu_name_key", value_set=known_aliases),
            "GPU name '{gpu_name}' does not resolve through gpu_alias",
        ),
        Rule(
            "duplicate_key",
            e.ExpectCompoundColumnsToBeUnique(column_list=_key_columns(PRICE_KEY)),
            "duplicate of an earlier row with the same " + ", ".join(PRICE_KEY),
        ),
        Rule(
            "date_in_future",
            e.ExpectColumnValuesToBeBetween(column="days_in_future", max_value=0),
            "observed_at {observed_at} is after the run date",
        ),
    ]


def benchmark_rules(known_aliases: list[str]) -> list[Rule]:
    import great_expectations as gx

    e = gx.expectations
    return [
        *_not_null(BENCHMARK_REQUIRED),
        Rule(
            "value_positive",
            e.ExpectColumnValuesToBeBetween(column="value", min_value=0, strict_min=True),
            "value {value} is not positive",
        ),
        Rule(
            "gpu_count_range",
            e.ExpectColumnValuesToBeBetween(column="gpu_count", min_value=1, max_value=200000),
            "gpu_count {gpu_count} is not in [1, 200000]",
        ),
        Rule(
            "known_metric",
            e.ExpectColumnValuesToBeInSet(column="metric", value_set=list(BENCHMARK_METRICS)),
            f"metric '{{metric}}' is not one of {', '.join(BENCHMARK_METRICS)}",
        ),
        Rule(
            "unknown_gpu",
            e.ExpectColumnValuesToBeInSet(column="gpu_name_key", value_set=known_aliases),
            "GPU name '{gpu_name}' does not resolve through gpu_alias",
        ),
        Rule(
            "duplicate_key",
            e.ExpectCompoundColumnsToBeUnique(column_list=_key_columns(BENCHMARK_KEY)),
            "duplicate of an earlier row with the same " + ", ".join(BENCHMARK_KEY),
        ),
        Rule(
            "date_in_future",
            e.ExpectColumnValuesToBeBetween(column="days_in_future", max_value=0),
            "measured_at {measured_at} is after the run date",
        ),
    ]


def validate(table: str, frame: pl.DataFrame, rules: list[Rule], required: tuple[str, ...]) -> list[Violation]:
    """Run `rules` over `frame` and return every (row, rule) it breaks.

    A missing required column makes the whole batch unusable: that raises MissingColumns.
    Of rows that share a key, the first is kept and the later copies are violations.
    """
    import great_expectations as gx

    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise MissingColumns(table, missing)
    if frame.height == 0:
        return []
    ctx, batch_definition = _context()
    # GX may report results in another order than the suite lists them: tag each
    # expectation with its rule name and read the tag back.
    for rule in rules:
        rule.expectation.meta = {"rule": rule.name}
    by_name = {rule.name: rule for rule in rules}
    suite = gx.ExpectationSuite(name=f"{table}_suite", expectations=[r.expectation for r in rules])
    pandas_frame = _for_gx(frame)
    batch = batch_definition.get_batch(batch_parameters={"dataframe": pandas_frame})
    result = batch.validate(suite, result_format={"result_format": "COMPLETE"})
    rows = frame.to_dicts()
    violations: list[Violation] = []
    for outcome in result.results:
        if outcome.success:
            continue
        rule = by_name[outcome.expectation_config.meta["rule"]]
        raised = (outcome.exception_info or {}).get("raised_exception")
        if raised:
            message = (outcome.exception_info or {}).get("exception_message")
            raise RuntimeError(f"{table}: validation rule {rule.name} could not run: {message}")
        indices = outcome.result.get("unexpected_index_list") or []
        if rule.name == "duplicate_key":
            kwargs = outcome.expectation_config.kwargs
            indices = _later_copies(pandas_frame, indices, kwargs.get("column_list") or [kwargs["column"]])
        for index in indices:
            violations.append(Violation(int(index), rule.name, _explain(rule, rows[int(index)])))
    return violations


KEY_PREFIX = "key__"


def _key_columns(key: tuple[str, ...]) -> list[str]:
    return [KEY_PREFIX + c for c in key]


def _for_gx(frame: pl.DataFrame):
    # Key parts may legitimately be null (zone); the duplicate check compares copies in
    # which null is "", so two rows that differ only in being null are the same key. The
    # originals stay untouched for the not-null rules.
    key_columns = (set(PRICE_KEY) | set(BENCHMARK_KEY)) & set(frame.columns)
    return frame.with_columns(
        [pl.col(c).cast(pl.String).fill_null("").alias(KEY_PREFIX + c) for c in sorted(key_columns)]
    ).to_pandas()


def _later_copies(pandas_frame, indices, key_columns) -> list[int]:
    flagged = pandas_frame.loc[list(indices), list(key_columns)]
    return [int(i) for i in flagged.index[flagged.duplicated(keep="first")]]


def _explain(rule: Rule, row: dict) -> str:
    try:
        return rule.explain.format(**row)
    except (KeyError, ValueError):
        return rule.explain


def days_in_future(column: str, run_date: date) -> pl.Expr:
    return (pl.col(column) - pl.lit(run_date)).dt.total_days().fill_null(0).alias("days_in_future")
