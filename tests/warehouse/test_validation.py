"""The required columns are one great-expectations expectation per batch, and still one rejected
row per missing column, named after it (warehouse/loading/validation.py)."""

import polars as pl
import pytest

from warehouse.loading import validation


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")  # the suite itself, every time


def test_each_missing_required_column_is_its_own_violation_in_column_order():
    positive = validation.Rule("x_positive", validation.between("x", min_value=0, strict_min=True),
                               "x {x} is not positive")
    rules = [*validation._not_null(("a", "b", "c")), positive]
    frame = pl.DataFrame({"a": [1, None, 3, None], "b": ["x", "y", None, None], "c": [1.0, 2.0, 3.0, None],
                          "x": [1.0, -1.0, 2.0, 3.0]})
    # by hand: row 1 lacks a, row 2 lacks b, row 3 lacks all three; row 1's x is negative
    assert validation.validate("t", frame, rules, ("a",)) == [
        validation.Violation(1, "required_a", "a is missing"),
        validation.Violation(3, "required_a", "a is missing"),
        validation.Violation(2, "required_b", "b is missing"),
        validation.Violation(3, "required_b", "b is missing"),
        validation.Violation(3, "required_c", "c is missing"),
        validation.Violation(1, "x_positive", "x -1.0 is not positive"),
    ]
    assert len(rules) == 2  # one expectation for the three columns


def test_a_batch_with_every_required_value_breaks_nothing():
    frame = pl.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    assert validation.validate("t", frame, validation._not_null(("a", "b")), ()) == []
