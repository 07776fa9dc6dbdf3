"""The report's queries: each reads one night's snapshot (`night_*` tables), returns a Polars frame.

Nothing here reads a live table that a later load can change, except the append-only
`source_status` and `run_log`, bounded by the night's own finish: so a night's report can be
rebuilt byte for byte at any later time. Every ordering ends in a unique key.
"""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl

from reports.night import Night
from sources.kit.registry import live_sources as live_source_names
from warehouse.loading.observations import STALE_AFTER_DAYS
from warehouse.store.sql_text import sql_text

# The identity of an option, the tie-break of every ranking of options.
OPTION_KEY = ["platform_id", "n_gpus", "pricing", "provider", "region", "zone", "instance_type"]
QUOTE_KEY = ["source", "provider", "region", "zone", "instance_type", "pricing"]


def workloads(con, night: Night) -> pl.DataFrame:
    """The night's workloads: the seed's role pipeline first, then serving, then training; by id."""
    return con.execute(
        """select * exclude (run_date, run_id) from night_workload where run_date = ?
           order by case kind when 'role_pipeline' then 0 when 'serving' then 1 else 2 end, workload_id""",
        [night.run_date],
    ).pl()


def options(con, night: Night, workload_id: str | None = None) -> pl.DataFrame:
    """Every option of the night (best quote per workload x platform x GPU count x pricing)."""
    return con.execute(
        f"""select * exclude (run_date, run_id) from night_option
            where run_date = ? and (? is null or workload_id = ?)
            order by workload_id, {", ".join(OPTION_KEY)}""",
        [night.run_date, workload_id, workload_id],
    ).pl()


def decisions(con, night: Night) -> pl.DataFrame:
    """The night's decision rows per job: rent on-demand, spot, reserved, buy, API, measured."""
    if not _present(con, "night_decision"):  # a warehouse from before decisions were kept
        return pl.DataFrame()
    return con.execute(
        """select * exclude (run_date, run_id) from night_decision where run_date = ?
           order by workload_id, choice, pick, platform_id, n_gpus, provider""",
        [night.run_date],
    ).pl()


def front_rows(con, night: Night) -> pl.DataFrame:
    """The night's decision rows with what the front page's tables say of each: the GPUs one rented
    unit holds, the held-out points of its error band, its platform's shape (reports/sql/front_rows.sql)."""
    if not _present(con, "night_decision"):
        return pl.DataFrame()
    platforms = ("night_platform" if _present(con, "night_platform") else
                 "(select null::date as run_date, null::varchar as platform_id, null::varchar as name, "
                 "null::integer as gpus_per_node, null::integer as scaleup_domain_gpus where false)")
    # a warehouse whose night_option predates the column: its kind's band gives the points
    points = "min(error_points)" if _has_column(con, "night_option", "error_points") else "null::bigint"
    return con.execute(sql_text("reports", "front_rows.sql", platforms=platforms, points=points),
                       [night.run_date, night.run_date]).pl()


def platforms(con, night: Night) -> pl.DataFrame:
    """The night's platforms' shape (name, GPUs per node and per scale-up domain), to say fleets in words."""
    if not _present(con, "night_platform"):  # a warehouse from before it was kept: fleets say platform ids
        return pl.DataFrame(schema={"platform_id": pl.String})
    return con.execute(
        """select platform_id, name as platform_name, gpus_per_node, scaleup_domain_gpus from night_platform
           where run_date = ? order by platform_id""",
        [night.run_date],
    ).pl()


# in the warehouse the connection reads (its default database), not in a catalog it attached
_OWN = "table_catalog = current_database() and table_schema = current_schema()"


def _has_column(con, table: str, column: str) -> bool:
    return bool(con.execute(f"select count(*) from information_schema.columns where {_OWN} "
                            "and table_name = ? and column_name = ?", [table, column]).fetchone()[0])


def _present(con, table: str) -> bool:
    return bool(con.execute(f"select count(*) from information_schema.tables where {_OWN} and table_name = ?",
                            [table]).fetchone()[0])


def refusals(con, night: Night) -> dict[str, pl.DataFrame]:
    """Refused layouts per workload and platform: the GPU counts refused, the reason at the largest,
    where it fits; asked once for the night (on a lake every query reads the catalog). A workload
    with none maps to an empty frame of the same columns (`""` key)."""
    frame = con.execute(
        """select workload_id, platform_id, refusal_kind, list(n_gpus order by n_gpus) as gpu_counts,
                  arg_max(refusal, n_gpus) as reason, any_value(fits_from_gpus) as fits_from_gpus
           from night_refusal where run_date = ?
           group by workload_id, platform_id, refusal_kind order by workload_id, platform_id, refusal_kind""",
        [night.run_date],
    ).pl()
    parts = {key[0]: part.drop("workload_id")
             for key, part in frame.partition_by("workload_id", as_dict=True, maintain_order=True).items()}
    return {"": frame.clear().drop("workload_id"), **parts}


def bottlenecks(con, night: Night) -> pl.DataFrame:
    return con.execute(
        """select platform_id, bottleneck, topologies from night_bottleneck where run_date = ?
           order by platform_id, bottleneck""",
        [night.run_date],
    ).pl()


def backtest(con, night: Night) -> pl.DataFrame:
    return con.execute(
        """select * exclude (run_date, run_id) from night_backtest where run_date = ?
           order by kind, workload_id, gpu_id, gpu_count, source, source_ref, source_row""",
        [night.run_date],
    ).pl()


def curves(con, night: Night) -> pl.DataFrame:
    """The night's interactivity curves (night_curve, warehouse/loading/night_curve.py): none on a
    warehouse or a night from before they were kept."""
    if not _present(con, "night_curve"):
        return pl.DataFrame(schema={"workload_id": pl.String, "platform_id": pl.String, "pricing": pl.String})
    return con.execute(
        """select * exclude (run_date, run_id) from night_curve where run_date = ?
           order by workload_id, pricing, platform_id, tokens_per_s_per_user""",
        [night.run_date],
    ).pl()


def error_bands(con, night: Night) -> pl.DataFrame:
    """The bands the night's estimates stated: per workload kind and class (night_error_band_class),
    or per kind alone on a night kept before classes had bands of their own."""
    if _present(con, "night_error_band_class"):
        by_class = con.execute(
            """select kind, class, level, confidence, error_p50, error_p90, points, basis from night_error_band_class
               where run_date = ? and points > 0 order by kind, class, level""",
            [night.run_date],
        ).pl()
        if by_class.height:
            return by_class
    return con.execute(
        """select kind, level, confidence, error_p50, error_p90, points, basis from night_error_band
           where run_date = ? and points > 0 order by kind, level""",
        [night.run_date],
    ).pl()


def backtest_by_gpu(con, night: Night) -> pl.DataFrame:
    return con.execute(
        """select kind, gpu_id, count(*) as points,
                  quantile_cont(loao_ape, 0.5) as median_ape, quantile_cont(loao_ape, 0.9) as p90_ape
           from night_backtest where run_date = ? and loao_factor is not null
           group by all order by kind, gpu_id""",
        [night.run_date],
    ).pl()


def calibration(con, night: Night) -> pl.DataFrame:
    """The calibration each workload x accelerator used, with the GPU counts it applies to (a
    measured count is "measured", the others are calibrated from it or wider groups)."""
    return con.execute(
        sql_text("reports", "calibration.sql"),
        [night.run_date],
    ).pl()


def calibration_by_option(con, night: Night) -> dict[tuple[str, str, int], dict]:
    """The calibration (level, factor, basis, points) per (workload, platform, GPU count), to explain a change."""
    frame = con.execute(
        """select workload_id, platform_id, n_gpus, level, factor, basis, points from night_calibration
           where run_date = ?""",
        [night.run_date],
    ).pl()
    return {(r["workload_id"], r["platform_id"], r["n_gpus"]): r for r in frame.iter_rows(named=True)}


def parameters(con, night: Night, scope: str) -> pl.DataFrame:
    return con.execute(
        """select subject, name, value, unit, source from night_parameter where run_date = ? and scope = ?
           order by subject nulls first, name""",
        [night.run_date, scope],
    ).pl()


def source_refs(con, night: Night) -> pl.DataFrame:
    return con.execute(
        """select input, source, source_ref, rows, first_date, last_date from night_source_ref
           where run_date = ? order by input, source, source_ref""",
        [night.run_date],
    ).pl()


def rejected(con, night: Night) -> pl.DataFrame:
    return con.execute(
        """select source, target_table, rule, sum(rows) as rows, min(example) as example
           from night_rejected where run_date = ?
           group by all order by rows desc, source, target_table, rule""",
        [night.run_date],
    ).pl()


def unresolved_gpus(con, night: Night) -> pl.DataFrame:
    """The night's GPU spellings no catalog accelerator matched, with how many rows each cost."""
    return con.execute(
        """select source, gpu_name, sum(source_rows) as rows, min(example) as why
           from night_rejected where run_date = ? and rule = 'unknown_gpu'
           group by all order by rows desc, source, gpu_name""",
        [night.run_date],
    ).pl()


def live_sources(con, night: Night) -> pl.DataFrame:
    """Every live source as the night saw it: its status that night, last good load, staleness.

    Reads source_status (append-only) up to the night's finish, so later runs do not change it.
    The staleness rule is warehouse.loading.observations' (no good load in STALE_AFTER_DAYS days).
    """
    frame = con.execute(
        sql_text("reports", "live_sources.sql"),
        [night.finished_at, night.finished_at, night.run_id],
    ).pl()
    stale_before = night.run_date - timedelta(days=STALE_AFTER_DAYS)
    names = pl.DataFrame({"source": sorted(live_source_names())})
    return (
        names.join(frame, on="source", how="left")
        .with_columns(
            pl.col("tonight").fill_null("not fetched"),
            (pl.col("last_ok").is_null() | (pl.col("last_ok") < stale_before)).alias("stale"),
        )
        .sort("source")
    )


def known_prices(con, night: Night) -> pl.DataFrame:
    """Every quote-day price the night knew (observed up to its date), from night_price_point."""
    return con.execute(
        sql_text("reports", "known_prices.sql", quote_key=", ".join(QUOTE_KEY)),
        [night.run_date],
    ).pl()


def price_fresh_days(con, night: Night) -> float:
    """The night's freshness window in days (assumption price_fresh_days; 30 on a night before it)."""
    row = con.execute(
        "select value from night_parameter where run_date = ? and scope = 'assumption' and name = 'price_fresh_days'",
        [night.run_date],
    ).fetchone()
    return 30.0 if row is None or row[0] is None else float(row[0])


def latest_prices(known: pl.DataFrame, as_of: date) -> pl.DataFrame:
    """Per quote, its latest observation on or before `as_of` (what latest_price picks that day)."""
    return (
        known.filter(pl.col("observed_at") <= as_of)
        .sort([*QUOTE_KEY, "observed_at"], nulls_last=True)
        .group_by(QUOTE_KEY, maintain_order=True)
        .last()
    )
