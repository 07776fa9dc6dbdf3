"""Load the reference catalog (gpu, platform, model, workload, gpu_alias, efficiencies).

The catalog is validated like any incoming table: ids present and unique, peaks positive,
every reference to another table resolvable. Rows that fail go to `rejected_row`; the rest
replace the reference tables in one transaction.
"""

from __future__ import annotations

from dataclasses import replace

import duckdb
import polars as pl

from sources.bundled.catalog import FILES, KEYS, ORIGIN_COLUMNS
from sources.kit.spec import Reject
from warehouse.loading import validation
from warehouse.loading.load import LoadResult, RunContext, _jsonable, replace_rejects
from warehouse.store.db import transaction

SOURCE = "bundled_catalog"

POSITIVE = {
    "gpu": ["memory_usable_gb", "mem_bw_tbps", "bf16_tflops"],
    "platform": ["gpus_per_node", "scaleup_domain_gpus", "max_nodes"],
    "model": ["params_total_b", "params_active_b", "layers", "hidden"],
    # a serving or training figure left empty is not used; one that is given must be positive
    "workload": ["total_tokens", "epochs", "seq_len", "global_batch_seqs", "input_len", "output_len", "max_output_len",
                 "samples", "ttft_ms", "tpot_ms", "demand_tokens_per_s", "spec_accept_len"],
    "link": ["collective_eff"],
    "convergence": ["global_batch_seqs", "samples_to_converge"],
}
# (table, column) must be one of (other table)'s ids.
REFERENCES = {
    "platform": [("gpu_id", "gpu")],
    "workload": [("model_id", "model"), ("consumer_model_id", "model")],
    "gpu_alias": [("gpu_id", "gpu")],
    "gpu_instance": [("gpu_id", "gpu")],
    "api_price": [("model_id", "model")],
    "convergence": [("workload_id", "workload")],
    "provider_capacity": [("gpu_id", "gpu")],
}


def _key_name(table: str) -> str:
    return "_".join(KEYS[table])


def _keyed(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Add the table's id (joined when compound) and its case-insensitive comparison key."""
    parts = KEYS[table]
    name = _key_name(table)
    joined = pl.concat_str([pl.col(p) for p in parts], separator="/")
    keyed = frame if name in frame.columns else frame.with_columns(joined.alias(name))
    # ids are compared case-insensitively: "H100" and "h100" are the same alias
    return keyed.with_columns(pl.col(name).str.strip_chars().str.to_lowercase().alias(f"{name}_key"))


def _rules(table: str, ids: dict[str, list[str]]) -> list[validation.Rule]:
    key = _key_name(table)
    rules = [
        validation.Rule("required_id", validation.not_null(key), f"{key} is missing"),
        validation.Rule("duplicate_key", validation.unique(f"{key}_key"), f"{key} '{{{key}}}' repeats"),
    ]
    for column in POSITIVE.get(table, []):
        rules.append(
            validation.Rule(
                f"positive_{column}",
                validation.between(column, min_value=0, strict_min=True),
                f"{column} {{{column}}} must be a positive number",
            )
        )
    if table == "workload":
        rules.append(validation.Rule("context_too_long", validation.in_set("context_check", ["ok"]),
                                     "{context_check}"))
    for column, other in REFERENCES.get(table, []):
        rules.append(
            validation.Rule(
                f"unknown_{other}",
                validation.in_set(column, ids[other]),
                f"{column} '{{{column}}}' is not a known {other}",
            )
        )
    return rules


def validate_catalog(catalog: dict[str, pl.DataFrame]) -> tuple[dict[str, pl.DataFrame], list[tuple[str, Reject]]]:
    """Return the valid rows of every table and the rejected ones (with their table)."""
    ids = {t: catalog[t][KEYS[t][0]].drop_nulls().to_list() for t in ("gpu", "model", "workload")}
    valid: dict[str, pl.DataFrame] = {}
    rejects: list[tuple[str, Reject]] = []
    for table in KEYS:  # gpu, model and workload first: the others refer to them
        frame, unsafe = validation.quarantine_unsafe_values(SOURCE, _with_origin(table, catalog[table]), _origin)
        rejects += [(table, _numbered_by_catalog_row(r)) for r in unsafe]
        key = _key_name(table)
        checked = _context_checked(frame, valid["model"]) if table == "workload" else frame
        violations = validation.validate(table, _keyed(table, checked), _rules(table, ids), (key,))
        dup_or_bad = sorted({v.row_index for v in violations})
        rows = dict(zip(dup_or_bad, frame[dup_or_bad].to_dicts(), strict=True)) if dup_or_bad else {}
        for v in violations:
            row = rows[v.row_index]
            where, number = row["catalog_file"], row["catalog_row"]
            as_given = _jsonable({k: value for k, value in row.items() if k not in ORIGIN_COLUMNS})
            rejects.append((table, Reject(SOURCE, number, v.rule, f"{where} row {number}: {v.detail}", as_given)))
        kept = frame.filter(~pl.int_range(pl.len()).is_in(dup_or_bad)) if dup_or_bad else frame
        valid[table] = kept.drop(ORIGIN_COLUMNS)
        if table in ids:
            ids[table] = valid[table][KEYS[table][0]].to_list()
    return valid, rejects


def _context_checked(workloads: pl.DataFrame, models: pl.DataFrame) -> pl.DataFrame:
    """`context_check`: "ok", or why a serving workload's requests do not fit its model's context
    (a prompt plus its longest output, where the workload caps it, else its mean output)."""
    limits = models.select("model_id", pl.col("max_context").alias("context_limit"))
    needed = pl.col("input_len") + pl.coalesce("max_output_len", "output_len")
    over = (pl.col("kind") == "serving") & (needed > pl.col("context_limit"))
    why = pl.format("{} takes at most {} tokens of prompt and output (max_context), and {} asks {}",
                    "model_id", "context_limit", "workload_id", needed.round(0).cast(pl.Int64))
    return (workloads.join(limits, on="model_id", how="left", maintain_order="left")
            .with_columns(pl.when(over).then(why).otherwise(pl.lit("ok")).alias("context_check"))
            .drop("context_limit"))


def _origin(row: dict, _position: int) -> str:
    return f"{row['catalog_file']} row {row['catalog_row']}"


def _numbered_by_catalog_row(reject: Reject) -> Reject:
    """A reject of the value checks, numbered and kept as the catalog's other rejects are."""
    row = {k: v for k, v in reject.row.items() if k not in ORIGIN_COLUMNS}
    return replace(reject, source_row=reject.row["catalog_row"], row=_jsonable(row))


def _with_origin(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Rows given without an origin (tests, bench) are the bundled file's, numbered in order."""
    if "catalog_file" in frame.columns:
        return frame
    return frame.with_columns(
        pl.lit(f"{table}.csv").alias("catalog_file"), pl.int_range(1, frame.height + 1).alias("catalog_row")
    )


def load_reference(
    con: duckdb.DuckDBPyConnection,
    catalog: dict[str, pl.DataFrame],
    run: RunContext,
    unreadable: list[tuple[str, str]] = (),
) -> list[LoadResult]:
    """Replace the reference tables with the catalog's valid rows; `unreadable` are your files that failed."""
    valid, rejects = validate_catalog(catalog)
    results = []
    with transaction(con):
        for table, frame in valid.items():
            con.execute(f"delete from {table}")
            con.register("reference_rows", frame.to_arrow())
            con.execute(f"insert into {table} by name select * from reference_rows")
            con.unregister("reference_rows")
            table_rejects = [r for t, r in rejects if t == table]
            table_rejects += [
                Reject(SOURCE, 0, "source_unusable", why) for file, why in unreadable if file.endswith(_file(table))
            ]
            replace_rejects(con, SOURCE, table, table_rejects, run)
            results.append(LoadResult(SOURCE, table, frame.height, len(table_rejects)))
    return results


def _file(table: str) -> str:
    return "/" + FILES[table][0]
