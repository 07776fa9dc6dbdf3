"""estimate_best ranks one quote per price_group (072_price_group.sql) and still finds the cheapest
of every estimate row: worked on the toy catalog with quotes whose winners are known by hand."""

from datetime import date

import pytest

from tests.warehouse.test_decisions import _quote
from tests.warehouse.toy_catalog import toy_catalog
from warehouse.build.rebuild import rebuild_estimates
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference
from warehouse.store import db

RUN = RunContext.new("groups", date(2026, 11, 29))


@pytest.fixture(scope="module")
def built():
    con = db.connect(":memory:")
    load_reference(con, toy_catalog(), RUN)
    # two one-GPU VMs at the same price: one group, its quote the first by provider name
    _quote(con, "b.1", 1, 1.00, "on_demand", provider="b-cloud")
    _quote(con, "a.1", 1, 1.00, "on_demand", provider="a-cloud")
    # four GPUs for $3.60 ($0.90 per GPU-hour): its own group, since it comes in fours
    _quote(con, "z.4", 4, 3.60, "on_demand", provider="z-cloud")
    counts = rebuild_estimates(con, RUN.run_id, RUN.run_date)
    yield con, counts
    con.close()


def test_quotes_alike_are_one_group_and_those_of_another_size_are_not(built):
    con, _ = built
    groups = con.execute(
        "select provider, gpus_per_instance, quotes from price_group where pricing = 'on_demand' "
        "and platform_id is null order by gpus_per_instance").fetchall()
    assert groups == [("a-cloud", 1, 2), ("z-cloud", 4, 1)]


def test_the_winners_are_the_cheapest_of_every_estimate_row(built):
    con, counts = built
    # by hand, on-demand: 1 GPU costs $1.00 an hour from a-cloud (b-cloud ties, and is second by
    # name) against $3.60 for a whole 4-GPU z-cloud instance; 4 GPUs cost $3.60 from z-cloud
    # against 4 x $1.00 from a-cloud
    hourly = dict(con.execute(
        "select n_gpus, list(distinct provider || ' ' || usd_per_hour) from estimate_best "
        "where platform_id = 'toy-ws-4' and pricing = 'on_demand' and n_gpus in (1, 4) group by n_gpus").fetchall())
    assert hourly == {1: ["a-cloud 1.0"], 4: ["z-cloud 3.6"]}
    cheapest_of_all = con.execute(
        "select workload_id, platform_id, n_gpus, pricing, min(usd_total) from estimate group by all order by all"
    ).fetchall()
    best = con.execute(
        "select workload_id, platform_id, n_gpus, pricing, usd_total from estimate_best order by all").fetchall()
    assert best == cheapest_of_all and len(best) > 10
    # every estimate row is counted, though the groups' other quotes were never paired
    assert counts["estimate"] == con.execute("select count(*) from estimate").fetchone()[0]
    assert con.execute("select count(*) from estimate where provider = 'b-cloud'").fetchone()[0] > 0
