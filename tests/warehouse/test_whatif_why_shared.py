"""Why a role pipeline runs shared (issue 35, item 4): the fastest dedicated split's drafters
would sit idle most of the time, said with the rates that show it."""

from __future__ import annotations

import duckdb

from warehouse.questions.whatif import _why_shared


def _roles(rows: list[tuple]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("""create table topology_role (workload_id varchar, platform_id varchar, dtype varchar, fits boolean,
                   placement varchar, n_gpus integer, producers integer, consumers integer, tokens_per_s double,
                   consumer_rate double)""")
    con.executemany("insert into topology_role values ('job', 'p', 'bf16', ?, ?, 4, ?, ?, ?, ?)", rows)
    return con


def test_the_fastest_splits_drafters_busy_share_says_why():
    con = _roles([(True, "split", 3, 1, 30_000.0, 120_000.0),  # the fastest split: 30,000 of 120,000: 25% busy
                  (True, "split", 2, 2, 20_000.0, 240_000.0),
                  (False, "split", 1, 3, 90_000.0, 360_000.0),  # does not fit: never the reason
                  (True, "shared", 4, 4, 40_000.0, 400_000.0)])
    assert _why_shared(con, "job", "p", 4, "bf16") == (
        "in 3+1, the fastest split, the drafter GPU would be 25% busy (3 target GPUs make 30,000 tokens/s), so "
        "every GPU runs both roles in turn, the drafters training data-parallel with their gradients all-reduced "
        "each step")


def test_with_no_split_that_fits_nothing_is_claimed():
    assert _why_shared(_roles([(False, "split", 3, 1, 30_000.0, 120_000.0)]), "job", "p", 4, "bf16") is None
