"""Loads: stage -> validate -> merge, one transaction per load.

A load replaces exactly the rows its payloads produced before (every row carries the id of
the kept payload it came from, `<source>/<day>/<name>`), so loading the same input twice
leaves the warehouse unchanged, a corrected file replaces its rows (removed rows included),
and no other payload's rows are touched: not another day's, not another file's. Rows that
break a rule go to `rejected_row` with the source, the row and the rule.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

import duckdb
import polars as pl

from sources import bundled
from sources.kit.contracts import BENCHMARK_REQUIRED, PRICE_REQUIRED
from sources.kit.spec import Parsed, Reject
from warehouse.loading import plausibility, validation
from warehouse.loading.identity import resolve_rows
from warehouse.store.db import transaction
from warehouse.store.sql_text import sql_text


@dataclass(frozen=True)
class LoadResult:
    source: str
    table: str
    loaded: int
    rejected: int


@dataclass(frozen=True)
class RunContext:
    run_id: str
    run_date: date
    extracted_at: datetime

    @classmethod
    def new(cls, run_id: str, run_date: date) -> RunContext:
        return cls(run_id, run_date, datetime.now(UTC).replace(tzinfo=None))


def load_prices(
    con: duckdb.DuckDBPyConnection, source: str, parsed: Parsed, run: RunContext, window: Sequence[str]
) -> LoadResult:
    """Validate and merge price quotes; `window` names the payloads whose rows this replaces."""
    frame = _with_payload(resolve_rows(con, parsed.rows), window).with_columns(
        (pl.col("usd_per_instance_hour") / pl.col("gpus_per_instance")).alias("usd_per_gpu_hour"),
        validation.days_in_future("observed_at", run.run_date),
    )
    frame = plausibility.price_bounds(con, _with_kept_order(con, frame))
    rules = validation.price_rules()
    return _merge(con, source, "price_quote", frame, parsed.rejects, rules, PRICE_REQUIRED, run, window)


def load_benchmarks(
    con: duckdb.DuckDBPyConnection, source: str, parsed: Parsed, run: RunContext, window: Sequence[str]
) -> LoadResult:
    """Validate and merge benchmark results; `window` names the payloads whose rows this replaces."""
    frame = _with_payload(resolve_rows(con, parsed.rows), window).with_columns(
        validation.days_in_future("measured_at", run.run_date)
    )
    frame = plausibility.benchmark_bounds(con, _with_kept_order(con, frame))
    rules = validation.benchmark_rules(plausibility.known_workloads(con))
    return _merge(con, source, "benchmark_result", frame, parsed.rejects, rules, BENCHMARK_REQUIRED, run, window)


def record_source_failure(
    con: duckdb.DuckDBPyConnection,
    source: str,
    table: str,
    message: str,
    run: RunContext,
    payload: str | None = None,
) -> None:
    """A payload or fetch that could not be used at all: one rejected row says why.

    A payload's failure replaces that payload's earlier failure (a replay of it converges),
    while the rows and row rejects it loaded before stay; a fetch failure (no payload) is an
    event of its run and stays.
    """
    reject = Reject(source=source, source_row=0, rule="source_unusable", detail=message, payload=payload)
    with transaction(con):
        if payload is not None:
            con.execute(
                "delete from rejected_row where target_table = ? and payload = ? and scope = 'source_unusable'",
                [table, payload],
            )
        _insert_rejects(con, table, [reject], run)


def remove_payload(con: duckdb.DuckDBPyConnection, table: str, payload: str) -> None:
    """Drop every row and reject one payload loaded (a stand-in that is no longer wanted)."""
    with transaction(con):
        con.execute(f"delete from {table} where payload = ?", [payload])
        con.execute("delete from rejected_row where target_table = ? and payload = ?", [table, payload])


def remove_providers(con: duckdb.DuckDBPyConnection, table: str, payload: str, providers: Sequence[str]) -> None:
    """Drop the rows and rejects one payload loaded for these providers (quotes another source replaced)."""
    with transaction(con):
        con.execute(f"delete from {table} where payload = ? and provider in (select unnest(?::varchar[]))",
                    [payload, list(providers)])
        con.execute(
            """delete from rejected_row where target_table = ? and payload = ?
               and json_extract_string(row_json, '$.provider') in (select unnest(?::varchar[]))""",
            [table, payload, list(providers)],
        )


def _with_kept_order(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> pl.DataFrame:
    """Rank each row's payload by when it was kept under raw/, 0 = kept last (ties and payloads
    not kept there, like the bundled files, by payload id): of rows that share a key, the
    validation keeps the latest-kept payload's, so a file ingested later corrects an earlier one."""
    payloads = frame.select(pl.col("payload").unique().drop_nulls())
    kept = con.execute(
        sql_text("warehouse.loading", "payload_kept_at.sql"),
        [payloads["payload"].to_list()],
    ).pl()
    ranked = (
        payloads.join(kept, on="payload", how="left")
        .sort(["kept_at", "payload"], descending=[True, False], nulls_last=True)
        .with_row_index(validation.KEPT_ORDER)
        .select("payload", pl.col(validation.KEPT_ORDER).cast(pl.Int64))
    )
    return frame.join(ranked, on="payload", how="left", maintain_order="left").with_columns(
        pl.col(validation.KEPT_ORDER).fill_null(ranked.height)
    )


def _with_payload(frame: pl.DataFrame, window: Sequence[str]) -> pl.DataFrame:
    if "payload" in frame.columns:
        return frame
    if len(window) != 1:
        raise ValueError("rows without a payload column need a window of exactly one payload")
    return frame.with_columns(pl.lit(window[0], dtype=pl.String).alias("payload"))


DATED_BY = {"price_quote": "observed_at", "benchmark_result": "measured_at"}


def _merge(con, source, table, frame, parse_rejects, rules, required, run, window) -> LoadResult:
    frame, up_to = _observed_by_run(frame, window, run)
    frame, unsafe = validation.quarantine_unsafe_values(source, frame)
    violations = validation.validate(table, frame, rules, required)
    good, rejects = _split(source, frame, violations, [*parse_rejects, *unsafe])
    with transaction(con):
        _delete_window(con, table, source, run, window, up_to)
        _insert(con, table, good, run)
        _insert_rejects(con, table, rejects, run)
    return LoadResult(source, table, good.height, len(rejects))


def _observed_by_run(frame: pl.DataFrame, window: Sequence[str], run: RunContext) -> tuple[pl.DataFrame, date | None]:
    """The rows a load may hold, and the last day it replaces (None: every day).

    The bundled files are loaded by every night, whatever its date: a night dated before some
    of their rows is history, so those rows are neither loaded nor rejected, and the copies an
    earlier night stored stay. Any other payload's rows dated after the run are date_in_future.
    """
    if not set(window) <= set(bundled.PAYLOADS):
        return frame, None
    return frame.filter(pl.col("days_in_future") <= 0), run.run_date


def _delete_window(
    con, table: str, source: str, run: RunContext, window: Sequence[str], up_to: date | None = None
) -> None:
    """Remove what these payloads loaded before: their rows and their rejects (dated up to
    `up_to`, when given).

    Rows loaded before payload ids existed carry none; they belong to (source, day of the
    run that loaded them) and go when that source's payloads of that day are loaded again.
    """
    dated = DATED_BY[table]
    con.execute(
        sql_text("warehouse.loading", "delete_window_rows.sql", table=table, dated=dated),
        [list(window), source, _window_day(window, run), up_to, up_to],
    )
    con.execute(
        sql_text("warehouse.loading", "delete_window_rejects.sql", dated=dated),
        [table, list(window), source, _window_day(window, run), up_to, up_to, up_to],
    )


def _window_day(window: Sequence[str], run: RunContext) -> date:
    days = {w.split("/")[1] for w in window if w.count("/") >= 2}
    try:
        return date.fromisoformat(days.pop()) if len(days) == 1 else run.run_date
    except ValueError:
        return run.run_date


def _split(
    source: str, frame: pl.DataFrame, violations: list[validation.Violation], other_rejects: list[Reject]
) -> tuple[pl.DataFrame, list[Reject]]:
    bad_indices = sorted({v.row_index for v in violations})
    rejects = list(other_rejects)
    if bad_indices:
        named = sorted(set(bad_indices) | {v.kept_index for v in violations if v.kept_index is not None})
        rows = dict(zip(named, frame[named].to_dicts(), strict=True))
        for v in violations:
            row = rows[v.row_index]
            position = row.get("source_row") or v.row_index + 1
            detail = f"{source} row {position}: {v.detail}"
            if v.kept_index is not None:
                kept = rows[v.kept_index]
                detail += f"; kept: {kept.get('payload')} row {kept.get('source_row') or v.kept_index + 1}"
            rejects.append(Reject(source, position, v.rule, detail, _jsonable(row), row.get("payload")))
    good = frame.filter(~pl.int_range(pl.len()).is_in(bad_indices)) if bad_indices else frame
    return good, rejects


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame, run: RunContext) -> None:
    # an empty frame inserted first would make DuckDB 1.5.5 drop the next source's rows into
    # this table in the same transaction once they fill a row group (tests/warehouse/test_loads.py)
    if frame.height == 0:
        return
    columns = {row[0] for row in con.execute(f"describe {table}").fetchall()}
    stamped = frame.with_columns(pl.lit(run.run_id).alias("run_id"), pl.lit(run.extracted_at).alias("extracted_at"))
    staged = stamped.select([c for c in stamped.columns if c in columns])
    con.register("staged_rows", staged.to_arrow())
    con.execute(f"insert into {table} by name select * from staged_rows")
    con.unregister("staged_rows")


def _insert_rejects(con: duckdb.DuckDBPyConnection, table: str, rejects: list[Reject], run: RunContext) -> None:
    if not rejects:
        return
    records = [
        (
            run.run_id,
            run.run_date,
            r.source,
            table,
            "source_unusable" if r.rule == "source_unusable" else "row",
            r.payload,
            r.source_row or None,
            r.rule,
            r.detail,
            json.dumps(_jsonable(r.row), sort_keys=True, default=str),
            run.extracted_at,
        )
        for r in rejects
    ]
    con.executemany(
        """insert into rejected_row (run_id, run_date, source, target_table, scope, payload, source_row,
           rule, detail, row_json, rejected_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        records,
    )


def replace_rejects(
    con: duckdb.DuckDBPyConnection, source: str, table: str, rejects: list[Reject], run: RunContext
) -> None:
    """Replace every reject of `source` for `table` (the reference catalog is loaded whole)."""
    con.execute("delete from rejected_row where source = ? and target_table = ?", [source, table])
    _insert_rejects(con, table, rejects, run)


def _jsonable(row: dict) -> dict:
    drop = validation.HELPER_COLUMNS
    return {k: (v.isoformat() if isinstance(v, date | datetime) else v) for k, v in row.items() if k not in drop}
