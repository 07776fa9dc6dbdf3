"""Costs and times that are one figure reached along two paths (k systems side by side, or one
system k times as long) differ in their last bits; the marts compare them at 9 significant
digits (rank_figure), so the stated tie-break decides, not the bits."""

import duckdb
import pytest

from warehouse.store.workspace import Workspace


def test_rank_figure_keeps_nine_significant_digits(con):
    def rank(x: str):
        return con.execute(f"select rank_figure(({x})::double)").fetchone()[0]

    assert rank("0.1 + 0.2") == rank("0.3") and 0.1 + 0.2 != 0.3
    assert rank("13901.809384643713") == rank("13901.809384643711") == pytest.approx(13901.8094)
    assert rank("1.00000001") != rank("1.0")  # the ninth digit still counts
    assert rank("0.0") == 0 and rank("null") is None
    assert rank("'infinity'") == float("inf")


@pytest.fixture(scope="module")
def night(offline_data):
    con = duckdb.connect(Workspace.resolve(offline_data).warehouse, read_only=True)
    yield con
    con.close()


def test_the_bundled_night_has_costs_equal_but_for_their_last_bits(night):
    pairs = night.execute(
        """select count(*) from estimate_best a join estimate_best b using (workload_id, platform_id, pricing)
           where a.n_gpus < b.n_gpus and a.usd_total <> b.usd_total
             and rank_figure(a.usd_total) = rank_figure(b.usd_total)""").fetchone()[0]
    assert pairs > 0  # what the two tests below are about


def test_no_option_on_the_frontier_has_a_faster_one_that_costs_the_same(night):
    dominated = night.execute(
        """select count(*) from pareto p join estimate_best e using (workload_id, pricing)
           where rank_figure(e.time_to_finish_h) < rank_figure(p.time_to_finish_h)
             and rank_figure(e.usd_total) <= rank_figure(p.usd_total)""").fetchone()[0]
    assert dominated == 0


def test_the_daily_choice_of_equal_costs_is_the_faster(night):
    slower = night.execute(
        """select count(*) from estimate_daily d join estimate_best e using (workload_id, platform_id, pricing)
           where rank_figure(e.usd_total) = rank_figure(d.usd_total)
             and rank_figure(e.time_to_finish_h) < rank_figure(d.time_to_finish_h)""").fetchone()[0]
    assert slower == 0
