"""Load the reference catalog (gpu, platform, model, workload, gpu_alias, efficiencies).

The catalog is validated like any incoming table: ids present and unique, peaks positive,
every reference to another table resolvable. Rows that fail go to `rejected_row`; the rest
replace the reference tables in one transaction.
"""

from __future__ import annotations

import duckdb
import polars as pl

from sources.base import Reject
from warehouse import validation
from warehouse.db import transaction
from warehouse.load import LoadResult, RunContext, _jsonable, _replace_rejects

SOURCE = "bundled_catalog"

ID_COLUMN = {
    "gpu": "gpu_id",
    "model": "model_id",
    "platform": "platform_id",
    "workload": "workload_id",
    "gpu_alias": "alias",
    "efficiency_default": "family",
    "stage_efficiency_default": "stage",
    "assumption": "name",
    "api_price": ("model_id", "provider"),
}
POSITIVE = {
    "gpu": ["memory_usable_gb", "mem_bw_tbps", "bf16_tflops"],
    "platform": ["gpus_per_node", "scaleup_domain_gpus", "max_nodes"],
    "model": ["params_total_b", "params_active_b", "layers", "hidden"],
    "workload": ["total_tokens"],
}
# (table, column) must be one of (other table)'s ids.
REFERENCES = {
    "platform": [("gpu_id", "gpu")],
    "workload": [("model_id", "model"), ("consumer_model_id", "model")],
    "gpu_alias": [("gpu_id", "gpu")],
    "api_price": [("model_id", "model")],
}


def _key_name(table: str) -> str:
    key = ID_COLUMN[table]
    return key if isinstance(key, str) else "_".join(key)


def _keyed(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Add the table's id (joined when compound) and its case-insensitive comparison key."""
    key = ID_COLUMN[table]
    parts = [key] if isinstance(key, str) else list(key)
    name = _key_name(table)
    joined = pl.concat_str([pl.col(p) for p in parts], separator="/")
    keyed = frame if name in frame.columns else frame.with_columns(joined.alias(name))
    # ids are compared case-insensitively: "H100" and "h100" are the same alias
    return keyed.with_columns(pl.col(name).str.strip_chars().str.to_lowercase().alias(f"{name}_key"))


def _rules(table: str, ids: dict[str, list[str]]) -> list[validation.Rule]:
    import great_expectations as gx

    e = gx.expectations
    key = _key_name(table)
    rules = [
        validation.Rule("required_id", e.ExpectColumnValuesToNotBeNull(column=key), f"{key} is missing"),
        validation.Rule(
            "duplicate_key", e.ExpectColumnValuesToBeUnique(column=f"{key}_key"), f"{key} '{{{key}}}' repeats"
        ),
    ]
    for column in POSITIVE.get(table, []):
        rules.append(
            validation.Rule(
                f"positive_{column}",
                e.ExpectColumnValuesToBeBetween(column=column, min_value=0, strict_min=True),
                f"{column} {{{column}}} must be a positive number",
            )
        )
    for column, other in REFERENCES.get(table, []):
        rules.append(
            validation.Rule(
                f"unknown_{other}",
                e.ExpectColumnValuesToBeInSet(column=column, value_set=ids[other]),
                f"{column} '{{{column}}}' is not a known {other}",
            )
        )
    return rules


def validate_catalog(catalog: dict[str, pl.DataFrame]) -> tuple[dict[str, pl.DataFrame], list[tuple[str, Reject]]]:
    """Return the valid rows of every table and the rejected ones (with their table)."""
    ids = {t: catalog[t][ID_COLUMN[t]].drop_nulls().to_list() for t in ("gpu", "model")}
    valid: dict[str, pl.DataFrame] = {}
    rejects: list[tuple[str, Reject]] = []
    for table in ID_COLUMN:  # gpu and model first: the others refer to them
        frame = catalog[table]
        key = _key_name(table)
        violations = validation.validate(table, _keyed(table, frame), _rules(table, ids), (key,))
        dup_or_bad = sorted({v.row_index for v in violations})
        rows = frame.to_dicts()
        for v in violations:
            rejects.append(
                (
                    table,
                    Reject(
                        SOURCE,
                        v.row_index + 1,
                        v.rule,
                        f"{table}.csv row {v.row_index + 1}: {v.detail}",
                        _jsonable(rows[v.row_index]),
                    ),
                )
            )
        valid[table] = frame.filter(~pl.int_range(pl.len()).is_in(dup_or_bad)) if dup_or_bad else frame
        if table in ids:
            ids[table] = valid[table][ID_COLUMN[table]].to_list()
    return valid, rejects


def load_reference(
    con: duckdb.DuckDBPyConnection, catalog: dict[str, pl.DataFrame], run: RunContext
) -> list[LoadResult]:
    valid, rejects = validate_catalog(catalog)
    results = []
    with transaction(con):
        for table, frame in valid.items():
            con.execute(f"delete from {table}")
            con.register("reference_rows", frame.to_arrow())
            con.execute(f"insert into {table} by name select * from reference_rows")
            con.unregister("reference_rows")
            table_rejects = [r for t, r in rejects if t == table]
            _replace_rejects(con, SOURCE, table, table_rejects, run, "*")
            results.append(LoadResult(SOURCE, table, frame.height, len(table_rejects)))
    return results
