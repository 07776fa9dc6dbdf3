"""What can be recomputed is kept by digest (warehouse/store/cache.py). A batch great-expectations judged
is judged once: the same values under the same rules get the kept result, anything that could
change the result runs the suite again. (Charts: tests/reports/test_charts.py.)"""

import json
import os
import time
from datetime import date

import polars as pl
import pytest

from warehouse.loading import validation
from warehouse.store import cache

RULES = [
    validation.Rule("value_positive", validation.between("value", min_value=0, strict_min=True),
                    "value {value} is not positive"),
    validation.Rule("known_metric", validation.in_set("metric", ["tokens_per_s"]), "metric '{metric}' is unknown"),
    validation.Rule("date_in_future", validation.between("days_in_future", max_value=0),
                    "measured_at {measured_at} is after the run date"),
]
EXPECTED = [  # by hand: row 1 has a negative value, row 2 an unknown metric
    validation.Violation(1, "value_positive", "value -3.0 is not positive"),
    validation.Violation(2, "known_metric", "metric 'samples' is unknown"),
]


def batch(payload: str = "user_runs/2026-11-29/runs.csv", run_date: date = date(2026, 11, 29), value: float = 5.0):
    return pl.DataFrame(
        {"value": [value, -3.0, 7.0], "metric": ["tokens_per_s", "tokens_per_s", "samples"],
         "measured_at": [date(2026, 11, 1)] * 3, "payload": [payload] * 3}
    ).with_columns(validation.days_in_future("measured_at", run_date))


@pytest.fixture
def suites_run(monkeypatch, tmp_path):
    """How many times a suite really ran, with a cache of this test's own."""
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(tmp_path / "cache"))
    calls = []
    real = validation._run_suite

    def counted(*args):
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(validation, "_run_suite", counted)
    return calls


def test_the_same_values_under_the_same_rules_are_judged_once(suites_run):
    assert validation.validate("t", batch(), RULES, ()) == EXPECTED
    # another payload, another night: lineage and a past date's distance are not what the rules judge
    again = batch(payload="user_runs/2026-11-30/runs.csv", run_date=date(2026, 11, 30))
    assert validation.validate("t", again, RULES, ()) == EXPECTED
    assert suites_run == ["t"]


@pytest.mark.parametrize(
    "change",
    [
        lambda: ("t", batch(value=6.0), RULES),  # a value a rule reads
        lambda: ("t", batch(run_date=date(2026, 10, 30)), RULES),  # its date is now in the future
        lambda: ("other_table", batch(), RULES),
        lambda: ("t", batch(), [*RULES[:1], validation.Rule("known_metric", validation.in_set(
            "metric", ["tokens_per_s", "samples"]), "metric '{metric}' is unknown")]),  # a rule's argument
        lambda: ("t", batch(), [validation.Rule(r.name, r.expectation, r.explain + "!") for r in RULES]),  # a message
    ],
)
def test_anything_that_can_change_the_result_runs_the_suite_again(suites_run, change):
    validation.validate("t", batch(), RULES, ())
    table, frame, rules = change()
    validation.validate(table, frame, rules, ())
    assert len(suites_run) == 2


def test_a_future_date_is_judged_by_the_suite_not_the_cache(suites_run):
    validation.validate("t", batch(), RULES, ())
    future = batch(run_date=date(2026, 10, 30))
    assert validation.Violation(0, "date_in_future", "measured_at 2026-11-01 is after the run date") in \
        validation.validate("t", future, RULES, ())


def test_a_damaged_entry_is_a_miss_and_is_written_again(suites_run, tmp_path):
    validation.validate("t", batch(), RULES, ())
    (entry,) = (tmp_path / "cache" / "validation").iterdir()
    for damage in (b"", b"[[1, 2]", b'{"not": "a list"}', b'[["x", "rule", "detail"]]'):
        entry.write_bytes(damage)
        assert validation.validate("t", batch(), RULES, ()) == EXPECTED
        assert json.loads(entry.read_bytes()) == [[v.row_index, v.rule, v.detail] for v in EXPECTED]
    assert len(suites_run) == 5


def test_off_keeps_nothing_and_an_unwritable_cache_only_costs_time(suites_run, monkeypatch, tmp_path):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")
    assert validation.validate("t", batch(), RULES, ()) == EXPECTED
    assert not (tmp_path / "cache").exists()
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(blocker))
    assert validation.validate("t", batch(), RULES, ()) == EXPECTED
    assert len(suites_run) == 2


def test_entries_unused_for_the_keep_days_go_when_a_new_one_is_written(suites_run, tmp_path):
    folder = tmp_path / "cache" / "validation"
    folder.mkdir(parents=True)
    old, recent = folder / "0ld", folder / "recent"
    for path, age_days in ((old, cache.KEEP_DAYS + 1), (recent, cache.KEEP_DAYS - 1)):
        path.write_text("[]")
        stamp = time.time() - age_days * 86400
        os.utime(path, (stamp, stamp))
    validation.validate("t", batch(), RULES, ())
    assert not old.exists() and recent.exists()
    assert len(list(folder.iterdir())) == 2


def test_the_cache_follows_the_settings(monkeypatch, tmp_path):
    from warehouse.store import settings

    monkeypatch.delenv("GPUCALC_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert settings.cache_dir() == tmp_path / "xdg" / "gpucalc"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert settings.cache_dir() == tmp_path / "home" / ".cache" / "gpucalc"


def test_a_key_is_a_digest_never_a_path(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="not a digest"):
        cache.write("charts", "../../outside", b"x")
