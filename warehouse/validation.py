"""Validation suites (great-expectations 1.x) for every incoming table.

Each suite checks one staged batch and returns, per rule it breaks, the rows that break it.
GX validates pandas frames (it has no Polars or DuckDB engine that works today), so the
batch is copied to pandas for the check; the rows themselves stay in Polars.
"""

from __future__ import annotations

import hashlib
import io
import logging
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

    for name in ("great_expectations", "great_expectations.data_context.types.base"):  # no per-context chatter
        logging.getLogger(name).setLevel(logging.WARNING)
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


def _resolved_gpu_rule() -> Rule:
    import great_expectations as gx

    return Rule(
        "unknown_gpu",
        gx.expectations.ExpectColumnValuesToBeInSet(column="gpu_check", value_set=["ok"]),
        "{gpu_unresolved}",
    )


def price_rules() -> list[Rule]:
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
            "implausible_price_low",
            e.ExpectColumnValuesToBeBetween(column="price_floor_ratio", min_value=1),
            "{usd_per_gpu_hour:.4g} USD per {gpu} GPU-hour is below the plausible floor of {floor_usd:.3g} "
            "(a quarter of owning one at its purchase price over 5 years); a unit or parsing error?",
        ),
        Rule(
            "implausible_price_high",
            e.ExpectColumnValuesToBeBetween(column="price_ceiling_ratio", max_value=1),
            "{usd_per_gpu_hour:.4g} USD per {gpu} GPU-hour is above the plausible ceiling of {ceiling_usd:.3g} "
            "(its purchase price recovered in 500 hours); cents read as dollars?",
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
        _resolved_gpu_rule(),
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


def benchmark_rules(known_workloads: list[str]) -> list[Rule]:
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
            "exceeds_hardware_peak",
            e.ExpectColumnValuesToBeBetween(column="peak_ratio", max_value=1),
            "{value:.4g} {unit} on {gpu_count} x {gpu} implies {peak_ratio:.3g}x the GPU's highest dense peak "
            "for {workload_id}: not a real measurement",
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
            "unknown_workload",
            e.ExpectColumnValuesToBeInSet(column="workload_id", value_set=known_workloads),
            "workload_id '{workload_id}' is not a gpucalc workload (see the workload table)",
        ),
        _resolved_gpu_rule(),
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
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise MissingColumns(table, missing)
    if frame.height == 0:
        return []
    key = _batch_key(table, frame, rules)
    if key not in _VALIDATED:
        if len(_VALIDATED) >= _MEMO_SIZE:
            _VALIDATED.pop(next(iter(_VALIDATED)))
        _VALIDATED[key] = _run_suite(table, frame, rules)
    return list(_VALIDATED[key])


# The same batch under the same rules breaks the same rules: every run loads the bundled
# catalog and files again, and a suite costs about half a second however small the batch.
_VALIDATED: dict[str, list[Violation]] = {}
_MEMO_SIZE = 64


def _batch_key(table: str, frame: pl.DataFrame, rules: list[Rule]) -> str:
    digest = hashlib.sha256(table.encode())
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    digest.update(buffer.getvalue())
    for rule in rules:
        digest.update(rule.name.encode() + rule.explain.encode())
        digest.update(rule.expectation.json(exclude={"meta", "id", "rendered_content", "notes"}).encode())
    return digest.hexdigest()


def _run_suite(table: str, frame: pl.DataFrame, rules: list[Rule]) -> list[Violation]:
    import great_expectations as gx

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
    broken: list[tuple[Rule, list[int]]] = []
    for outcome in result.results:
        if outcome.success:
            continue
        rule = by_name[outcome.expectation_config.meta["rule"]]
        raised = (outcome.exception_info or {}).get("raised_exception")
        if raised:
            message = (outcome.exception_info or {}).get("exception_message")
            raise RuntimeError(f"{table}: validation rule {rule.name} could not run: {message}")
        indices = [int(i) for i in outcome.result.get("unexpected_index_list") or []]
        if rule.name == "duplicate_key":
            kwargs = outcome.expectation_config.kwargs
            indices = _later_copies(pandas_frame, indices, kwargs.get("column_list") or [kwargs["column"]])
        broken.append((rule, indices))
    # Only the rows that break a rule become Python dicts: a big clean batch never does.
    flagged = sorted({i for _, indices in broken for i in indices})
    rows = dict(zip(flagged, frame[flagged].to_dicts(), strict=True)) if flagged else {}
    return [Violation(i, rule.name, _explain(rule, rows[i])) for rule, indices in broken for i in indices]


KEY_PREFIX = "key__"


def _key_columns(key: tuple[str, ...]) -> list[str]:
    return [KEY_PREFIX + c for c in key]


# Columns the rules read that are not part of the row as received (row_json leaves them out).
HELPER_COLUMNS = frozenset(
    {"gpu_name_key", "days_in_future", "gpu_check", "gpus_per_instance_override", "gpus_per_accelerator",
     "floor_usd", "ceiling_usd", "price_floor_ratio", "price_ceiling_ratio", "peak_flops", "min_flops_per_unit",
     "job_units", "peak_ratio"}
)
EARLIEST_DATE, LATEST_DATE = date(2000, 1, 1), date(2100, 12, 31)


def quarantine_unsafe_values(source: str, frame: pl.DataFrame) -> tuple[pl.DataFrame, list]:
    """Take out rows whose values no later step can hold: dates outside 2000-2100, nan or inf.

    Such a value crashed whole loads (an integer read as a date became year 57440, which no
    Python date can hold). Each row becomes one reject naming the column and the rule; the
    rest go on to the validation suite.
    """
    from sources.base import Reject

    problems: dict[int, tuple[str, str]] = {}
    for name, dtype in frame.schema.items():
        if name in HELPER_COLUMNS:
            continue
        if dtype == pl.Date:
            bad = frame[name].is_not_null() & ((frame[name] < EARLIEST_DATE) | (frame[name] > LATEST_DATE))
            rule, what = "unparseable_date", f"{name} is not a date between {EARLIEST_DATE.year} and {LATEST_DATE.year}"
        elif dtype.is_float():
            bad = frame[name].is_nan() | frame[name].is_infinite()
            rule, what = "non_finite_value", f"{name} is not a finite number"
        else:
            continue
        for index in bad.fill_null(False).arg_true().to_list():
            problems.setdefault(index, (rule, what))
    if not problems:
        return frame, []
    indices = sorted(problems)
    unsafe_columns = [n for n, t in frame.schema.items() if t == pl.Date or t.is_float()]
    cleaned = frame[indices].with_columns(
        [
            pl.when(pl.col(c).is_between(EARLIEST_DATE, LATEST_DATE)).then(pl.col(c)).alias(c)
            if frame.schema[c] == pl.Date
            else pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(c)
            for c in unsafe_columns
        ]
    ).to_dicts()
    rejects = []
    for index, row in zip(indices, cleaned, strict=True):
        rule, what = problems[index]
        position = row.get("source_row") or index + 1
        kept = {k: v for k, v in row.items() if k not in HELPER_COLUMNS}
        rejects.append(Reject(source, position, rule, f"{source} row {position}: {what}", kept, row.get("payload")))
    return frame.filter(~pl.int_range(pl.len()).is_in(indices)), rejects


def _for_gx(frame: pl.DataFrame):
    # Key parts may legitimately be null (zone); the duplicate check compares copies in
    # which null is "", so two rows that differ only in being null are the same key. The
    # originals stay untouched for the not-null rules.
    key_columns = (set(PRICE_KEY) | set(BENCHMARK_KEY)) & set(frame.columns)
    resolved = (
        [(pl.col("gpu").is_not_null() | pl.col("gpu_name").is_null()).replace_strict({True: "ok", False: "unresolved"})
         .alias("gpu_check")]
        if {"gpu", "gpu_name"} <= set(frame.columns) else []
    )
    return frame.with_columns(
        [pl.col(c).cast(pl.String).fill_null("").alias(KEY_PREFIX + c) for c in sorted(key_columns)] + resolved
    ).to_pandas()


def _later_copies(pandas_frame, indices, key_columns) -> list[int]:
    flagged = pandas_frame.loc[list(indices), list(key_columns)]
    return [int(i) for i in flagged.index[flagged.duplicated(keep="first")]]


def _explain(rule: Rule, row: dict) -> str:
    try:
        return rule.explain.format(**row)
    except (KeyError, ValueError, TypeError):  # a value the message cannot format (null)
        return f"breaks rule {rule.name}"


def days_in_future(column: str, run_date: date) -> pl.Expr:
    return (pl.col(column) - pl.lit(run_date)).dt.total_days().fill_null(0).alias("days_in_future")
