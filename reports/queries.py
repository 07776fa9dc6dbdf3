"""The report's queries, each returning a Polars frame."""

from __future__ import annotations

import duckdb
import polars as pl

from sources.registry import live_sources as live_source_names
from warehouse.observations import source_overview


def run_summary(con: duckdb.DuckDBPyConnection, run_date) -> dict:
    row = con.execute(
        """select run_id, mode, status, price_rows, benchmark_rows, rejected_rows, estimate_rows,
                  sources_failed, duration_s
           from run_log where run_date = ? and status <> 'running'
           order by started_at desc limit 1""",
        [run_date],
    ).pl()
    return row.to_dicts()[0] if row.height else {}


def workloads(con) -> pl.DataFrame:
    return con.execute(
        """select workload_id, name, kind, token_unit, total_tokens from workload
           order by case kind when 'role_pipeline' then 0 when 'serving' then 1 else 2 end, workload_id"""
    ).pl()


def best_options(con, workload_id: str, order: str, limit: int) -> pl.DataFrame:
    """Options per platform for a workload: the best (by `order`) per platform x pricing."""
    return con.execute(
        f"""
        with ranked as (
            select *, row_number() over (partition by platform_id, pricing order by {order}) as r
            from estimate where workload_id = ?
        )
        select platform_id, n_gpus, layout, bottleneck, tokens_per_s, time_to_finish_h, usd_total,
               usd_per_mtok, provider, instance_type, region, pricing, confidence, error_p50, error_p90
        from ranked where r = 1
        order by {order}
        limit {int(limit)}
        """,
        [workload_id],
    ).pl()


def refusals(con, workload_id: str) -> pl.DataFrame:
    return con.execute(
        """select platform_id, min(n_gpus) as smallest_tried, any_value(refusal) as reason
           from topology_estimate t
           where workload_id = ? and not fits
             and not exists (select 1 from topology_estimate f
                             where f.workload_id = t.workload_id and f.platform_id = t.platform_id and f.fits)
           group by platform_id order by platform_id""",
        [workload_id],
    ).pl()


def api_baseline(con, workload_id: str) -> pl.DataFrame:
    return con.execute(
        """select provider, api_usd_per_mtok_output, self_hosted_usd_per_mtok, observed_at from api_baseline
           where workload_id = ? order by api_usd_per_mtok_output limit 1""",
        [workload_id],
    ).pl()


def changes_since_previous(con, run_date) -> tuple[object, pl.DataFrame]:
    """Tonight's best option per workload x platform x pricing against the previous run date."""
    previous = con.execute("select max(run_date) from estimate_daily where run_date < ?", [run_date]).fetchone()[0]
    if previous is None:
        return None, pl.DataFrame()
    frame = con.execute(
        """select t.workload_id, t.platform_id, t.pricing, p.usd_total as before_usd, t.usd_total as now_usd,
                  t.usd_total / p.usd_total - 1 as change, p.provider as before_provider, t.provider as now_provider
           from estimate_daily t
           join estimate_daily p using (workload_id, platform_id, pricing)
           where t.run_date = ? and p.run_date = ? and abs(t.usd_total / p.usd_total - 1) >= 0.01
           order by abs(t.usd_total / p.usd_total - 1) desc limit 20""",
        [run_date, previous],
    ).pl()
    return previous, frame


def freshness(con) -> pl.DataFrame:
    return con.execute(
        """
        select 'price_quote' as data, source, count(*) as rows, min(observed_at) as oldest,
               max(observed_at) as newest, count(distinct provider) as providers
        from price_quote group by source
        union all
        select 'benchmark_result', source, count(*), min(measured_at), max(measured_at), null
        from benchmark_result group by source
        union all
        select 'catalog: gpu', 'bundled_catalog', count(*), min(source_date), max(source_date), null from gpu
        order by data, source
        """
    ).pl()


def rejected(con, run_date) -> pl.DataFrame:
    return con.execute(
        """select source, target_table, rule, count(*) as rows, any_value(detail) as example
           from rejected_row where run_date = ?
           group by all order by rows desc, source, rule""",
        [run_date],
    ).pl()


def live_sources(con, run_date) -> pl.DataFrame:
    """Every live source: tonight's status (or 'not fetched'), last good load, staleness."""
    overview = source_overview(con, run_date)
    tonight = con.execute(
        "select source, arg_max(status, checked_at) as tonight, arg_max(message, checked_at) as message "
        "from source_status where run_date = ? group by source",
        [run_date],
    ).pl()
    names = pl.DataFrame({"source": live_source_names()})
    return (
        names.join(overview.select("source", "last_ok", "rows_loaded", "stale"), on="source", how="left")
        .join(tonight, on="source", how="left")
        .with_columns(pl.col("tonight").fill_null("not fetched"), pl.col("stale").fill_null(True))
        .sort("source")
    )


def error_bands(con) -> pl.DataFrame:
    return con.execute(
        """select kind, confidence, error_p50, error_p90, points, basis from error_band
           order by kind, confidence"""
    ).pl()


def backtest_by_gpu(con) -> pl.DataFrame:
    return con.execute(
        """select kind, gpu_id, count(*) as points,
                  quantile_cont(loao_ape, 0.5) as median_ape, quantile_cont(loao_ape, 0.9) as p90_ape
           from backtest where loao_factor is not null group by all order by kind, gpu_id"""
    ).pl()


def price_sources(con) -> pl.DataFrame:
    return con.execute(
        """select source, source_ref, count(*) as quotes, max(observed_at) as observed_at
           from price_quote group by all order by source, source_ref"""
    ).pl()


def assumptions(con) -> pl.DataFrame:
    return con.execute("select name, value, unit, source from assumption order by name").pl()
