"""Report queries on hand-made rows."""

from datetime import date

import pytest

from reports import queries
from reports.markdown import fmt_hours, fmt_usd, table


def daily(con, day, platform, usd, provider):
    con.execute(
        """insert into estimate_daily (run_id, run_date, workload_id, platform_id, pricing, usd_total, provider)
           values ('r', ?, 'w', ?, 'on_demand', ?, ?)""",
        [day, platform, usd, provider],
    )


def test_changes_since_previous_run(con):
    assert queries.changes_since_previous(con, date(2026, 11, 29))[0] is None
    daily(con, date(2026, 11, 28), "hgx-h100-8", 100.0, "aws")
    daily(con, date(2026, 11, 28), "hgx-b200-8", 80.0, "lambda")
    daily(con, date(2026, 11, 29), "hgx-h100-8", 90.0, "nebius")
    daily(con, date(2026, 11, 29), "hgx-b200-8", 80.4, "lambda")  # moved 0.5%: not reported
    previous, changes = queries.changes_since_previous(con, date(2026, 11, 29))
    assert previous == date(2026, 11, 28)
    assert changes.select("platform_id", "change", "before_provider", "now_provider").rows() == [
        ("hgx-h100-8", pytest.approx(-0.1), "aws", "nebius")
    ]


def test_markdown_formatting():
    assert fmt_hours(0.5) == "30 min" and fmt_hours(5) == "5.0 h" and fmt_hours(72) == "3.0 d"
    assert fmt_usd(1234.5) == "$1,234" and fmt_usd(2.5) == "$2.50"
    import polars as pl

    text = table(pl.DataFrame({"a": ["x|y"], "b": [None]}), {"a": ("A", None), "b": ("B", None)})
    assert text.splitlines() == ["| A | B |", "|---|---|", "| x\\|y |  |"]
