"""The report's pure helpers on hand-made rows: latest prices, rankings, winners."""

from datetime import date

import polars as pl

from reports.changes import ranked, winners
from reports.queries import latest_prices


def quote(day, usd, zone=None, provider="aws"):
    return {"source": "s", "provider": provider, "region": "r", "zone": zone, "instance_type": "i",
            "pricing": "on_demand", "observed_at": day, "usd_per_gpu_hour": usd}


def test_latest_prices_keep_each_quotes_latest_observation_up_to_the_day():
    known = pl.DataFrame([quote(date(2026, 1, 1), 1.0), quote(date(2026, 1, 3), 2.0),
                          quote(date(2026, 1, 2), 5.0, zone="z1"), quote(date(2026, 1, 5), 9.0, provider="gcp")])
    on_2nd = latest_prices(known, date(2026, 1, 2))
    assert sorted(on_2nd.select("zone", "usd_per_gpu_hour").rows(), key=str) == [("z1", 5.0), (None, 1.0)]
    on_4th = latest_prices(known, date(2026, 1, 4))
    assert sorted(on_4th["usd_per_gpu_hour"].to_list()) == [2.0, 5.0]  # a null zone is a quote of its own


def option(platform, usd, hours, provider="aws", workload="w"):
    return {"workload_id": workload, "platform_id": platform, "n_gpus": 8, "pricing": "on_demand",
            "provider": provider, "region": "r", "zone": None, "instance_type": "i", "usd_total": usd,
            "time_to_finish_h": hours}


def test_ties_are_broken_by_the_option_key_and_last_bit_noise_does_not_reorder():
    options = pl.DataFrame([option("b", 100.0, 2.0), option("a", 100.0 * (1 + 1e-15), 2.0), option("c", 90.0, 5.0)])
    assert ranked(options, ["usd_total", "time_to_finish_h"])["platform_id"].to_list() == ["c", "a", "b"]
    best = winners(options)
    assert best.select("pricing", "platform_id").rows() == [("on_demand", "c")]  # one winner per basis
    spot = pl.DataFrame([{**option("d", 95.0, 1.0), "pricing": "spot"}])
    mixed = winners(pl.concat([options, spot]))
    # each basis has its own winner: the $95 spot option does not hide the $90 on-demand one, nor the reverse
    assert sorted(mixed.select("pricing", "platform_id").rows()) == [("on_demand", "c"), ("spot", "d")]


def test_a_table_of_an_attached_catalog_is_not_the_warehouses():
    import duckdb

    from reports.queries import _has_column, _present

    con = duckdb.connect()
    con.execute("attach ':memory:' as other")
    con.execute("create table other.night_decision (error_points bigint)")
    assert not _present(con, "night_decision") and not _has_column(con, "night_decision", "error_points")
    con.execute("create table night_decision (error_points bigint)")
    assert _present(con, "night_decision") and _has_column(con, "night_decision", "error_points")
