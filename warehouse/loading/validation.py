"""Validation suites (great-expectations 1.x) for every incoming table.

Each suite checks one staged batch and returns, per rule it breaks, the rows that break it.
GX validates pandas frames (it has no Polars or DuckDB engine that works today), so the
batch is copied to pandas for the check; the rows themselves stay in Polars.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import polars as pl

from sources.kit.contracts import (
    BENCHMARK_KEY,
    BENCHMARK_METRICS,
    BENCHMARK_REQUIRED,
    MAX_USD_PER_GPU_HOUR,
    PRICE_KEY,
    PRICE_REQUIRED,
    PRICING_MODELS,
)
from sources.kit.rows import YEARS
from warehouse.loading.plausibility import MIN_PEAK_FRACTION
from warehouse.store import cache

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")


@dataclass(frozen=True)
class Expect:
    """A great-expectations expectation named by its class and arguments.

    It is built only when a suite runs: a batch whose result is in the cache
    (warehouse/store/cache.py) never imports great-expectations, which is slow to import (docs/scale.md).
    """

    kind: str  # the class in great_expectations.expectations
    args: dict

    def build(self):
        import great_expectations as gx

        return getattr(gx.expectations, self.kind)(**self.args)

    def columns(self) -> list[str]:
        return [self.args["column"]] if "column" in self.args else list(self.args.get("column_list", []))


def between(column: str, **bounds) -> Expect:
    return Expect("ExpectColumnValuesToBeBetween", {"column": column, **bounds})


def in_set(column: str, values) -> Expect:
    return Expect("ExpectColumnValuesToBeInSet", {"column": column, "value_set": list(values)})


def not_null(column: str) -> Expect:
    return Expect("ExpectColumnValuesToNotBeNull", {"column": column})


def unique(column: str) -> Expect:
    return Expect("ExpectColumnValuesToBeUnique", {"column": column})


def unique_together(columns: list[str]) -> Expect:
    return Expect("ExpectCompoundColumnsToBeUnique", {"column_list": list(columns)})


@dataclass(frozen=True)
class Rule:
    """One expectation and how to explain a row that breaks it.

    `each_of`: the rule is one expectation over several columns (the derived MISSING_REQUIRED),
    and a row breaks it once per listed column it lacks: as `<name>_<column>`, explained by
    `explain` with `{column}` the column's name.
    """

    name: str
    expectation: Expect
    explain: str  # format string over the row's columns, e.g. "price {usd_per_gpu_hour}"
    each_of: tuple[str, ...] = ()


@dataclass(frozen=True)
class Violation:
    row_index: int
    rule: str
    detail: str
    kept_index: int | None = None  # duplicate_key: the row kept instead of this one


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


# Set when a row lacks any required column, null when it lacks none (derived by _for_gx); which
# ones it lacks is read from the row itself.
MISSING_REQUIRED = "missing_required"


def _not_null(columns) -> list[Rule]:
    """One expectation for every required column, not one per column: GX's time grows with the
    expectations per batch (docs/scale.md), and a price or benchmark batch has 11 required
    columns. Which of them a flagged row lacks is read back from the row (`required_<column>`,
    one violation each)."""
    return [Rule("required", Expect("ExpectColumnValuesToBeNull", {"column": MISSING_REQUIRED}),
                 "{column} is missing", each_of=tuple(columns))]


def _resolved_gpu_rule() -> Rule:
    return Rule("unknown_gpu", in_set("gpu_check", ["ok"]), "{gpu_unresolved}")


def price_rules() -> list[Rule]:
    return [
        *_not_null(PRICE_REQUIRED),
        Rule(
            "price_per_gpu_hour_range",
            between("usd_per_gpu_hour", min_value=0, max_value=MAX_USD_PER_GPU_HOUR, strict_min=True),
            f"usd_per_gpu_hour {{usd_per_gpu_hour}} is not in (0, {MAX_USD_PER_GPU_HOUR:g}]",
        ),
        Rule(
            "implausible_price_low",
            between("price_floor_ratio", min_value=1),
            "{usd_per_gpu_hour:.4g} USD per {gpu} GPU-hour is below the plausible floor of {floor_usd:.3g} "
            "(a quarter of owning one at its purchase price over 5 years); a unit or parsing error?",
        ),
        Rule(
            "implausible_price_high",
            between("price_ceiling_ratio", max_value=1),
            "{usd_per_gpu_hour:.4g} USD per {gpu} GPU-hour is above the plausible ceiling of {ceiling_usd:.3g} "
            "(its purchase price recovered in 500 hours); cents read as dollars?",
        ),
        Rule(
            "gpus_per_instance_range",
            between("gpus_per_instance", min_value=0, max_value=1024, strict_min=True),
            "gpus_per_instance {gpus_per_instance} is not in (0, 1024]",
        ),
        Rule(
            "known_pricing_model",
            in_set("pricing", list(PRICING_MODELS)),
            f"pricing '{{pricing}}' is not one of {', '.join(PRICING_MODELS)}",
        ),
        Rule(
            "currency_usd",
            in_set("currency", ["USD"]),
            "currency '{currency}' is not USD",
        ),
        _resolved_gpu_rule(),
        _duplicate_rule(PRICE_KEY),
        Rule(
            "date_in_future",
            between("days_in_future", max_value=0),
            "observed_at {observed_at} is after the run date",
        ),
    ]


# Of plausible rows that share a key, which one is kept: a file kept later corrects an earlier one.
KEPT_INSTEAD = "the row of the payload kept last is kept (the first of them within one payload)"


def _duplicate_rule(key: tuple[str, ...]) -> Rule:
    """Rows that share a key: only rows that break no other rule compete, so a bad row never
    knocks out a good one; the loader names the row kept instead (`Violation.kept_index`)."""
    return Rule(
        "duplicate_key",
        unique_together(_key_columns(key)),
        f"same {', '.join(key)} as another row; {KEPT_INSTEAD}",
    )


def benchmark_rules(known_workloads: list[str]) -> list[Rule]:
    return [
        *_not_null(BENCHMARK_REQUIRED),
        Rule(
            "value_positive",
            between("value", min_value=0, strict_min=True),
            "value {value} is not positive",
        ),
        Rule(
            "exceeds_hardware_peak",
            between("peak_ratio", max_value=1),
            "{value:.4g} {unit} on {gpu_count} x {gpu} implies {peak_ratio:.3g}x the GPU's highest dense peak "
            "for {workload_id}: not a real measurement",
        ),
        Rule(
            "implausible_throughput_low",
            between("peak_floor_ratio", min_value=1),
            "{value:.4g} {unit} on {gpu_count} x {gpu} implies {peak_ratio:.3g} of the GPU's highest dense peak "
            f"for {{workload_id}}, below the floor of {MIN_PEAK_FRACTION:g} no real run falls under: "
            "a unit or parsing error?",
        ),
        Rule(
            "gpu_count_range",
            between("gpu_count", min_value=1, max_value=200000),
            "gpu_count {gpu_count} is not in [1, 200000]",
        ),
        Rule(
            "known_metric",
            in_set("metric", list(BENCHMARK_METRICS)),
            f"metric '{{metric}}' is not one of {', '.join(BENCHMARK_METRICS)}",
        ),
        Rule(
            "unknown_workload",
            in_set("workload_id", known_workloads),
            "workload_id '{workload_id}' is not a gpucalc workload (see the workload table)",
        ),
        Rule(
            "scenario_mismatch",
            in_set("scenario_check", ["ok"]),
            "scenario {scenario} is not the scenario of {workload_id}: its results are measured as "
            "{workload_scenario} (give scenario {workload_scenario}, or the workload that was measured)",
        ),
        _resolved_gpu_rule(),
        _duplicate_rule(BENCHMARK_KEY),
        Rule(
            "date_in_future",
            between("days_in_future", max_value=0),
            "measured_at {measured_at} is after the run date",
        ),
    ]


def validate(table: str, frame: pl.DataFrame, rules: list[Rule], required: tuple[str, ...]) -> list[Violation]:
    """Run `rules` over `frame` and return every (row, rule) it breaks.

    A missing required column makes the whole batch unusable: that raises MissingColumns.
    Of rows that share a key and break no other rule, the one `KEPT_INSTEAD` names is kept and
    every other row with that key is a duplicate_key violation naming it.
    """
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise MissingColumns(table, missing)
    if frame.height == 0:
        return []
    key = _batch_key(table, frame, rules)
    remembered = _recall(key)
    if remembered is not None:
        return remembered
    violations = _run_suite(table, frame, rules)
    entries = [[v.row_index, v.rule, v.detail] + ([] if v.kept_index is None else [v.kept_index]) for v in violations]
    cache.write("validation", key, json.dumps(entries).encode())
    return violations


def _recall(key: str) -> list[Violation] | None:
    """The violations an earlier run of the same suite on the same values found (warehouse/store/cache.py)."""
    content = cache.read("validation", key)
    try:
        return [Violation(int(row), str(rule), str(detail), *(int(k) for k in kept))  # kept: duplicate_key's
                for row, rule, detail, *kept in json.loads(content)]
    except (TypeError, ValueError):  # none kept, or damaged: run the suite
        return None


# What decides a batch's result besides its rows: this file's code and the GX release.
CODE_STAMP = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
GX_RELEASE = metadata.version("great_expectations")


def _batch_key(table: str, frame: pl.DataFrame, rules: list[Rule]) -> str:
    """A digest of everything a suite's result depends on, and of nothing else.

    Only the columns the rules read (and their messages name) count: a batch's payload id or
    lineage changes every night while its values, and so its result, do not.
    """
    digest = hashlib.sha256(f"{CODE_STAMP}\x00{GX_RELEASE}\x00{table}".encode())
    for rule in rules:
        spec = json.dumps([rule.name, rule.explain, rule.expectation.kind, rule.expectation.args, rule.each_of],
                          sort_keys=True, default=str)
        digest.update(spec.encode())
    read = sorted(set(frame.columns) & {c for rule in rules for c in _columns_read(rule)})
    buffer = io.BytesIO()
    frame.select(read).write_ipc(buffer)
    digest.update(f"\x00{frame.height}\x00".encode() + buffer.getvalue())
    return digest.hexdigest()


def _columns_read(rule: Rule) -> set[str]:
    """The batch columns behind a rule: its expectation's (as `_for_gx` derives them) and its message's."""
    columns = set()
    for column in rule.expectation.columns():
        if column == "gpu_check":
            columns |= set(GPU_CHECK_FROM)
        elif column == MISSING_REQUIRED:
            columns |= set(rule.each_of)
        else:
            columns.add(column.removeprefix(KEY_PREFIX))
    if rule.name == "duplicate_key":  # which copy is kept depends on when each payload was kept
        columns.add(KEPT_ORDER)
    fields = (name for _, name, _, _ in string.Formatter().parse(rule.explain) if name)
    return columns | {re.split(r"[.\[]", name)[0] for name in fields}


def _run_suite(table: str, frame: pl.DataFrame, rules: list[Rule]) -> list[Violation]:
    import great_expectations as gx

    ctx, batch_definition = _context()
    # GX may report results in another order than the suite lists them: tag each
    # expectation with its rule name and read the tag back.
    expectations = []
    for rule in rules:
        expectation = rule.expectation.build()
        expectation.meta = {"rule": rule.name}
        expectations.append(expectation)
    by_name = {rule.name: rule for rule in rules}
    suite = gx.ExpectationSuite(name=f"{table}_suite", expectations=expectations)
    pandas_frame = _for_gx(frame, rules)
    batch = batch_definition.get_batch(batch_parameters={"dataframe": pandas_frame})
    result = batch.validate(suite, result_format={"result_format": "COMPLETE"})
    broken: list[tuple[Rule, list[int]]] = []
    repeated: dict[int, tuple[list[int], list[str]]] = {}  # position in `broken` -> rows and key
    for outcome in result.results:
        if outcome.success:
            continue
        rule = by_name[outcome.expectation_config.meta["rule"]]
        raised = (outcome.exception_info or {}).get("raised_exception")
        if raised:
            message = (outcome.exception_info or {}).get("exception_message")
            raise RuntimeError(f"{table}: validation rule {rule.name} could not run: {message}")
        indices = [int(i) for i in outcome.result.get("unexpected_index_list") or []]
        if rule.name == "duplicate_key":  # settled once every other rule has had its say
            kwargs = outcome.expectation_config.kwargs
            repeated[len(broken)] = (indices, kwargs.get("column_list") or [kwargs["column"]])
        broken.append((rule, indices))
    failed = {i for position, (_, indices) in enumerate(broken) if position not in repeated for i in indices}
    kept_instead: dict[int, int] = {}
    for position, (indices, key_columns) in repeated.items():
        kept_instead |= _kept_instead(pandas_frame, indices, key_columns, failed)
        broken[position] = (broken[position][0], sorted(kept_instead))
    # Only the rows that break a rule become Python dicts: a big clean batch never does.
    flagged = sorted({i for _, indices in broken for i in indices})
    rows = dict(zip(flagged, frame[flagged].to_dicts(), strict=True)) if flagged else {}
    violations = []
    for rule, indices in broken:
        if rule.each_of:  # column by column, as one expectation per column would list them
            violations += [Violation(i, f"{rule.name}_{column}", rule.explain.format(column=column))
                           for column in rule.each_of for i in indices if rows[i].get(column) is None]
        else:
            kept = kept_instead if rule.name == "duplicate_key" else {}
            violations += [Violation(i, rule.name, _explain(rule, rows[i]), kept.get(i)) for i in indices]
    return violations


KEY_PREFIX = "key__"
# Per row, its payload's rank by when it was kept, 0 = kept last (warehouse/loading/load.py adds it).
KEPT_ORDER = "kept_order"


def _key_columns(key: tuple[str, ...]) -> list[str]:
    return [KEY_PREFIX + c for c in key]


# Columns the rules read that are not part of the row as received (row_json leaves them out).
HELPER_COLUMNS = frozenset(
    {"gpu_name_key", "days_in_future", "gpu_check", "gpus_per_instance_override", "gpus_per_accelerator",
     "floor_usd", "ceiling_usd", "price_floor_ratio", "price_ceiling_ratio", "peak_flops", "min_flops_per_unit",
     "job_units", "peak_ratio", "peak_floor_ratio", "workload_scenario", "scenario_check",
     KEPT_ORDER}
)
EARLIEST_DATE, LATEST_DATE = date(YEARS[0], 1, 1), date(YEARS[1], 12, 31)


def quarantine_unsafe_values(
    source: str, frame: pl.DataFrame, where: Callable[[dict, int], str] | None = None
) -> tuple[pl.DataFrame, list]:
    """Take out rows whose values no later step can hold: dates outside 2000-2100, nan or inf.

    Such a value crashed whole loads (an integer read as a date became year 57440, which no
    Python date can hold). Each row becomes one reject naming the column and the rule; the
    rest go on to the validation suite. `where(row, position)` says where the row came from
    (default "<source> row <position>").
    """
    from sources.kit.spec import Reject

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
        origin = where(row, position) if where else f"{source} row {position}"
        rejects.append(Reject(source, position, rule, f"{origin}: {what}", kept, row.get("payload")))
    return frame.filter(~pl.int_range(pl.len()).is_in(indices)), rejects


GPU_CHECK_FROM = ("gpu", "gpu_name")  # the columns `_for_gx` derives gpu_check from


def _for_gx(frame: pl.DataFrame, rules: list[Rule]):
    # Key parts may legitimately be null (zone); the duplicate check compares copies in
    # which null is "", so two rows that differ only in being null are the same key. The
    # originals stay untouched for the not-null rules.
    key_columns = (set(PRICE_KEY) | set(BENCHMARK_KEY)) & set(frame.columns)
    resolved = (
        [(pl.col("gpu").is_not_null() | pl.col("gpu_name").is_null()).replace_strict({True: "ok", False: "unresolved"})
         .alias("gpu_check")]
        if set(GPU_CHECK_FROM) <= set(frame.columns) else []
    )
    required = [c for rule in rules for c in rule.each_of]
    missing = (
        [pl.when(pl.any_horizontal(pl.col(required).is_null())).then(pl.lit("missing")).alias(MISSING_REQUIRED)]
        if required else []
    )
    keys = [pl.col(c).cast(pl.String).fill_null("").alias(KEY_PREFIX + c) for c in sorted(key_columns)]
    return frame.with_columns(keys + resolved + missing).to_pandas()


def _kept_instead(pandas_frame, indices, key_columns, failed: set[int]) -> dict[int, int]:
    """For each row that repeats a kept row's key, the kept row's index.

    `indices` are every row of a repeated key. The row kept is, of those that break no other
    rule, the one of the payload kept last, then the first in its payload. A row sharing its
    key with none that breaks no rule is left to its own rules.
    """
    flagged = pandas_frame.loc[list(indices), list(key_columns)]
    keys = dict(zip(flagged.index, flagged.itertuples(index=False, name=None), strict=True))
    kept_order = pandas_frame[KEPT_ORDER] if KEPT_ORDER in pandas_frame.columns else None
    ranked = sorted(keys, key=lambda i: (i in failed, 0 if kept_order is None else kept_order[i], i))
    keeper: dict[tuple, int] = {}
    kept_instead = {}
    for index in ranked:
        first = keeper.setdefault(keys[index], index)
        if first != index and first not in failed:
            kept_instead[int(index)] = int(first)
    return kept_instead


def _explain(rule: Rule, row: dict) -> str:
    try:
        return rule.explain.format(**row)
    except (KeyError, ValueError, TypeError):  # a value the message cannot format (null)
        return f"breaks rule {rule.name}"


def days_in_future(column: str, run_date: date) -> pl.Expr:
    """Days after the run date, 0 for any day up to it: a batch of past rows is the same batch
    (and its validation result is reused) whatever night loads it."""
    days = (pl.col(column) - pl.lit(run_date)).dt.total_days()
    return days.clip(lower_bound=0).fill_null(0).alias("days_in_future")
