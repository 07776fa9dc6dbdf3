"""Fresh prices only (issue 35, item 2): a quote observed more than price_fresh_days (30) before
the night is stale: it stays in price_quote, stale_price lists it with its age, `gpucalc prices`
shows it marked, and it prices no estimate, headline, decision or mart. The bundled snapshot's
rows are judged on the snapshot's date (2026-11-01), so on the bundled night (2026-11-29)
CoreWeave's rows read off its pages on 2026-09-20 (42 days earlier) are stale, the rest rank."""

import json
from datetime import date

from tests.conftest import OFFLINE_DAY
from tests.flows.cli_helpers import gpucalc, query
from warehouse.loading.backfill import ingest_file
from warehouse.store.workspace import Workspace

OLD = date(2026, 2, 28)  # nine months before the bundled night: 274 days
HEADER = "provider,region,instance_type,gpu_name,gpus_per_instance,usd_per_instance_hour,pricing,observed_at\n"
# $0.25 per GPU-hour: the snapshot's cheapest H100 on demand is $1.87 (the plausibility floor refuses $0.10)
QUOTE = "old-neocloud,us-east,8x H100 (old offer),H100,8,2.00,on_demand,2026-02-28\n"


def test_a_quote_nine_months_old_is_listed_as_stale_and_ranked_nowhere(offline_copy, tmp_path):
    assert (OFFLINE_DAY - OLD).days == 274
    path = tmp_path / "old.csv"
    path.write_text(HEADER + QUOTE)
    assert ingest_file("quotes", path, None, OFFLINE_DAY, Workspace.resolve(offline_copy)).ok
    # it was loaded: the market's history keeps it, and it would be the cheapest H100 GPU-hour by far
    kept = query(offline_copy, "select usd_per_gpu_hour, observed_at from price_quote where provider = 'old-neocloud'")
    assert kept == [(0.25, OLD)]
    assert query(offline_copy, "select min(usd_per_gpu_hour) from price_quote where gpu = 'H100-SXM' "
                               "and pricing = 'on_demand' and provider <> 'old-neocloud'") == [(1.87,)]
    # listed as stale, with its age on the night
    assert query(offline_copy, "select age_days, judged_on from stale_price where provider = 'old-neocloud'") \
        == [(274, OFFLINE_DAY)]
    assert query(offline_copy, "select value from assumption where name = 'price_fresh_days'") == [(30.0,)]
    # it prices nothing
    for table, column in [("latest_price", "provider"), ("price_option", "provider"), ("estimate", "provider"),
                          ("estimate_best", "provider"), ("decision", "provider"),
                          ("cheapest_per_gpu", "provider")]:
        assert query(offline_copy, f"select count(*) from {table} where {column} = 'old-neocloud'") == [(0,)], table
    assert query(offline_copy, "select count(*) from cheapest_per_gpu where usd_per_gpu_hour <= 0.25") == [(0,)]
    # `gpucalc prices` lists it, last, marked stale
    shown = gpucalc("prices", "H100", "--json", "--data-dir", str(offline_copy))
    assert shown.exit_code == 0, shown.output
    quotes = json.loads(shown.output)["quotes"]
    old = [q for q in quotes if q["provider"] == "old-neocloud"]
    assert len(old) == 1 and old[0]["stale"] is True and old[0]["age_days"] == 274
    assert old[0]["basis"] == "on_demand (stale: not ranked)"
    assert [q["stale"] for q in quotes] == sorted(q["stale"] for q in quotes)  # the fresh ones first
    text = gpucalc("prices", "H100", "--data-dir", str(offline_copy), env={"COLUMNS": ""})
    assert text.exit_code == 0, text.output
    assert "stale (observed before the freshness window: listed last, ranked nowhere)" in text.output
    assert "on_demand (stale: not ranked)" in text.output


def test_the_bundled_snapshot_is_judged_on_its_own_date(offline_data):
    # CoreWeave's GB200 trays, read off its pricing page 2026-09-20: 42 days before the snapshot
    stale = query(offline_data, "select instance_type, observed_at, judged_on, age_days from stale_price "
                                "where provider = 'coreweave' and gpu = 'GB200'")
    assert stale == [("gb200-4x", date(2026, 9, 20), date(2026, 11, 1), 42)]
    assert query(offline_data, "select count(*) from estimate_best where provider = 'coreweave' "
                               "and platform_id = 'gb200-nvl72'") == [(0,)]
    # OCI's GB200 list price of the snapshot's day ranks (28 days before the night, 0 on the snapshot's date)
    fresh = query(offline_data, "select usd_per_gpu_hour, observed_at from latest_price "
                                "where provider = 'oci' and gpu = 'GB200'")
    assert fresh == [(16.0, date(2026, 11, 1))]
    assert query(offline_data, "select count(*) from estimate_best where provider = 'oci' "
                               "and platform_id = 'gb200-nvl72'")[0][0] > 0
    # every stale row of the bundled night is one of the snapshot's older page reads
    assert query(offline_data, "select distinct source, observed_at from stale_price") \
        == [("bundled_snapshot", date(2026, 9, 20))]
