"""The shared record reader (sources.kit.records) and row builder (sources.kit.rows): whole-file refusals,
record-level rules, the reject cap, the per-record guard, value checks, and the memory bound."""

from __future__ import annotations

import json
import math
import tracemalloc
from datetime import date, datetime

import polars as pl
import pytest

from sources import fsdl, quotes_file, user_runs
from sources.kit import records
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.records import Rejects, first_of_each, json_items, read
from sources.kit.rows import Frame, RowProblem, day, number, price_row, text, whole
from sources.kit.spec import Payload, SourceError

DAY = date(2026, 6, 2)


def payload(body: bytes | str, name: str = "quotes.csv") -> Payload:
    return Payload("test", name, body.encode() if isinstance(body, str) else body, f"/data/{name}")


def listed(body: str, name: str = "quotes.csv", **options) -> list[tuple[int, object, str | None]]:
    settings = {"noun": "rows", "formats": ("csv", "jsonl", "yaml"), "required": ("a",)} | options
    return [(r.number, r.value, r.problem and r.problem[0]) for r in read("test", payload(body, name), **settings)]


# --- whole-file refusals ------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "message"), [
    (b"a,b\n\xe9t\xe9,1\n", r"not UTF-8 text \(byte 0xe9 at offset 4"),
    (b"\xff\xfea\x00,\x00b\x00", "UTF-16 byte-order mark"),
    (b"", "empty file"),
    (b"a,b\n", "no rows in file"),
    (b"# only a comment\n\n", "empty file"),
    (b"a,c\n1,2\n", r"unknown columns \['c'\]"),
    (b"b\n1\n", r"missing \['a'\]"),
    (b"a,a\n1,2\n", "names a column twice"),
])
def test_unusable_csv_files_are_refused_whole(body, message):
    with pytest.raises(SourceError, match=message):
        listed(body, known=("a", "b"))


def test_utf8_with_a_byte_order_mark_comments_and_blank_lines_read():
    body = "\ufeff# quotes kept by hand\nA,B\n\n  # a comment\n1,2\n"
    assert listed(body) == [(1, {"a": "1", "b": "2"}, None)]


def test_unknown_extension_and_oversized_yaml_are_refused():
    with pytest.raises(SourceError, match=r"must end in \.csv, \.jsonl, \.yaml"):
        listed("a\n1\n", "quotes.txt")
    with pytest.raises(SourceError, match="YAML files are limited"):
        listed("- {a: 1}\n" * 80_000, "quotes.yaml")


# --- record-level rules -------------------------------------------------------------------------

def test_a_decimal_comma_is_a_malformed_row_not_a_cut_price():
    got = listed("a,price\nx,1,50\ny,2.00\n")
    # "1,50" once loaded as 1.00 (the extra field was dropped); now the row is rejected
    assert got == [(1, {"values": ["x", "1", "50"]}, "malformed_row"), (2, {"a": "y", "price": "2.00"}, None)]


def test_a_short_row_and_broken_quoting_are_malformed_and_reading_goes_on():
    got = listed('a,b\n1\n"x"y,2\n3,4\n')
    assert [(n, rule) for n, _, rule in got] == [(1, "malformed_row"), (2, "malformed_row"), (3, None)]


def test_a_last_line_without_newline_is_possibly_truncated():
    got = listed("a,b\n1,2.75\n3,2.7")  # the file was cut in "2.75"
    assert [rule for _, _, rule in got] == [None, "possibly_truncated"]
    (record,) = [r for r in read("t", payload("a,b\n3,2.7"), noun="rows", formats=("csv",), required=("a",))]
    assert "add a final newline if it is complete" in record.problem[1]
    # a final comment line without a newline cuts no record
    assert [rule for _, _, rule in listed("a,b\n1,2\n# end")] == [None]


def test_jsonl_lines_fail_one_at_a_time():
    body = '{"A": 1}\n{"a": \n[1, 2]\n' + "1" * 5000 + '\n{"a": 3}'
    got = listed(body, "runs.jsonl")
    assert [(n, rule) for n, _, rule in got] == [
        (1, None), (2, "malformed_row"), (3, "not_a_mapping"), (4, "malformed_row"), (5, "possibly_truncated"),
    ]
    assert got[0][1] == {"a": 1}  # field names are normalised like a CSV header


def test_yaml_list_or_list_under_a_key_with_bad_dates_and_huge_ints_kept_as_text():
    body = "quotes:\n  - {A: 2026-13-45, b: " + "9" * 5000 + "}\n  - plain text\n"
    got = listed(body, "quotes.yaml", list_key="quotes")
    assert got[0][1] == {"a": "2026-13-45", "b": "9" * 5000} and got[1][2] == "not_a_mapping"
    with pytest.raises(SourceError, match="expected a list of rows"):
        listed("a: 1\n", "quotes.yaml", list_key="quotes")
    with pytest.raises(SourceError, match="invalid YAML"):
        listed("- {a: [1\n", "quotes.yaml")
    assert listed("- {a: 1}\n- {a: 2}", "quotes.yaml")[-1][2] == "possibly_truncated"


# --- rejects: the cap and the guard -------------------------------------------------------------

def test_rejects_are_capped_with_one_summary():
    rejects = Rejects("test")
    for n in range(1, 1501):
        rejects.add(n, "bad_value", f"row {n} is bad", {"n": n})
    result = rejects.result()
    assert len(result) == 1001 and result[999].source_row == 1000
    summary = result[-1]
    assert (summary.rule, summary.source_row) == ("too_many_rejects", 1001)
    assert "500 more rejected rows" in summary.detail


def test_the_guard_turns_one_record_s_failure_into_one_reject():
    rejects = Rejects("test")
    for n, record in enumerate([{"x": "1"}, {"x": "nan"}, None, {"x": "3"}], start=1):
        with rejects.guard(n, record, f"row {n}"):
            number(record["x"], "x")
    assert [(r.source_row, r.rule) for r in rejects.result()] == [(2, "non_finite_value"), (3, "parser_error")]
    crash = rejects.result()[1].detail
    assert crash.startswith("row 3 could not be read (TypeError: ") and len(crash) < 200
    with pytest.raises(SourceError), rejects.guard(9, {}, "row 9"):
        raise SourceError("test", "the whole payload is unusable")


def test_a_reject_keeps_scalars_and_short_text_only():
    record = {"a": "x" * 1000, "b": [1, 2], "c": math.nan, "d": date(2026, 1, 2), **{f"k{i}": i for i in range(50)}}
    kept = records.kept(record)
    assert kept["a"].endswith("...") and len(kept["a"]) < 210
    assert (kept["b"], kept["c"], kept["d"]) == ("a list of 2", "nan", "2026-01-02")
    assert len(kept) == 41 and kept["..."] == "14 more fields"


# --- value checks -------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "rule"), [
    ("nan", "non_finite_value"), (math.inf, "non_finite_value"), ("-Infinity", "non_finite_value"),
    ("1e999", "implausible_value"), (10**400, "implausible_value"), ([1], "wrong_type"), ({}, "wrong_type"),
    ("two", "not_a_number"), (True, "not_a_number"),
])
def test_numbers_that_are_not_real_numbers_are_named(value, rule):
    with pytest.raises(RowProblem) as info:
        number(value, "x")
    assert info.value.rule == rule


def test_numbers_whole_numbers_text_and_dates():
    assert (number(" 1.5 ", "x"), number("", "x"), number(None, "x"), number(1e300, "x")) == (1.5, None, None, 1e300)
    assert whole("8", "n") == 8 and whole(2**62, "n") == 2**62
    for bad, rule in ((2.5, "not_a_number"), (2**63, "implausible_value"), (1e300, "implausible_value")):
        with pytest.raises(RowProblem) as info:
            whole(bad, "n")
        assert info.value.rule == rule
    assert (text(8, "t"), text("  a ", "t"), text("", "t")) == ("8", "a", None)
    assert day("2026-05-01", "d") == date(2026, 5, 1) == day(datetime(2026, 5, 1, 9), "d")
    assert day("2026-05-01T10:00:00Z", "d") == date(2026, 5, 1)
    for bad in (20260101, "20260101", "2026-13-45", "1999-12-31", "2101-01-01", 2026.0, None):
        with pytest.raises(RowProblem) as info:
            day(bad, "d")
        assert info.value.rule == "unparseable_date"


def test_price_row_builds_the_contract_row_and_refuses_what_cannot_be_real():
    base = dict(provider="p", region="global", zone=None, instance_type="8x H100", gpu_name="H100",
                gpus_per_instance=8, usd_per_instance_hour=20.0, pricing="on_demand", observed_at=DAY,
                source="test", source_ref="ref", source_row=1)
    row = price_row(**base, gpu_memory_gb=80)
    assert set(row) == set(PRICE_QUOTE)
    assert (row["currency"], row["price_statistic"], row["gpu_memory_gb"], row["underlying_provider"]) == (
        "USD", "list", 80.0, None)
    assert price_row(**base | {"usd_per_instance_hour": 20}, gpu_memory_gb=1e9)["gpu_memory_gb"] is None
    for change, rule in (({"gpus_per_instance": 1025}, "implausible_value"),
                         ({"usd_per_instance_hour": 2e6}, "implausible_value"),
                         ({"usd_per_instance_hour": math.inf}, "implausible_value"),
                         ({"gpu_name": " "}, "missing_field"),
                         ({"observed_at": date(1970, 1, 1)}, "unparseable_date")):
        with pytest.raises(RowProblem) as info:
            price_row(**base | change)
        assert info.value.rule == rule


def test_frame_chunks_conform_and_cap_the_row_count(monkeypatch):
    monkeypatch.setattr(Frame, "CHUNK", 2)
    frame = Frame(PRICE_QUOTE, "test", max_rows=5)
    for n in range(5):
        frame.add({"provider": "p", "gpus_per_instance": n + 1, "observed_at": DAY, "source_row": n})
    rows = frame.finish()
    assert dict(rows.schema) == PRICE_QUOTE and rows["gpus_per_instance"].to_list() == [1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(SourceError, match="more than 5 rows"):
        frame.add({})
    assert dict(Frame(PRICE_QUOTE, "test").finish().schema) == PRICE_QUOTE  # no rows: still the contract


def test_first_of_each_rejects_later_copies():
    frame = pl.DataFrame({"k": ["a", "b", "a", "a"], "source_row": [1, 2, 3, 4]})
    rejects = Rejects("test")
    kept = first_of_each(frame, ["k"], rejects, lambda r: f"row {r['source_row']}: second {r['k']}")
    assert kept["source_row"].to_list() == [1, 2]
    assert [(r.source_row, r.rule, r.detail) for r in rejects.result()] == [
        (3, "duplicate_row", "row 3: second a"), (4, "duplicate_row", "row 4: second a")]


# --- json_items: a big JSON list, one record at a time --------------------------------------------

def test_json_items_reads_records_one_at_a_time_across_window_edges():
    items = [{"n": i, "name": "é" * (i % 7), "big": "x" * (i * 37 % 300)} for i in range(300)] + [12345678]
    body = json.dumps(items, indent=1).encode()
    assert list(json_items("t", "w", body, window=64)) == items  # records far longer than the window
    assert list(json_items("t", "w", b' {"a": 1} ')) == [{"a": 1}]
    assert list(json_items("t", "w", b"[]")) == []


@pytest.mark.parametrize(("body", "message"), [
    (b"", "empty body"), (b"<html>", "not JSON"), (b'"text"', "expected a list"), (b"[1, 2", "not JSON"),
    (b"[1] [2]", "extra data"), (b"[" * 100_000, "not JSON"), (b'["\xff"]', "not UTF-8"),
])
def test_json_items_refuses_what_is_not_a_json_list(body, message):
    with pytest.raises(SourceError, match=message):
        list(json_items("t", "w", body))


# --- a payload at the size limit parses in bounded memory ----------------------------------------

def fill(head: str, row, limit: int) -> bytes:
    parts, size, n = [head], len(head), 0
    while size + len(line := row(n)) <= limit:
        parts.append(line)
        size, n = size + len(line), n + 1
    return "".join(parts).encode()


MAX_SIZE = [
    (quotes_file, "quotes.csv", lambda: fill(
        "provider,region,instance_type,gpu_name,gpus_per_instance,usd_per_instance_hour,pricing,observed_at,note,"
        "source_ref\n",
        lambda n: f"example-neocloud,us-east,8x H200 reserved {n},H200,8,19.60,reserved_1y,2026-05-28,"
                  f"\"1-year term, 8 GPUs, quote {n:06d}\","
                  f"\"email from sales (Jane Doe), 2026-05-28, quote {n:06d}\"\n",
        quotes_file.SPEC.max_bytes)),
    (user_runs, "runs.jsonl", lambda: fill(
        "", lambda n: json.dumps({"workload_id": "dflash-qwen36-27b", "gpu_name": "RTX PRO 6000 Blackwell Workstation"
                                  " Edition", "gpu_count": 4, "role_split": "3+1", "value": 14800 + n,
                                  "system": "4x RTX PRO 6000 Blackwell workstation", "software": "vLLM 0.11, CUDA 13",
                                  "measured_at": "2026-05-01", "note": f"run {n:06d} of the nightly sweep"}) + "\n",
        user_runs.SPEC.max_bytes)),
    (fsdl, "cloud-gpus.csv", lambda: fill(
        "Cloud,GPU Type,GPU Arch,GPUs,GPU RAM,vCPUs,RAM,On-demand,Per-GPU,Spot,Name\n",
        lambda n: f"AWS,H100 (80 GB),Hopper,8,640,192,2048,55.04,6.88,22.00,p5.{n}xlarge\n",
        fsdl.SPEC.max_bytes)),
]


@pytest.mark.slow  # a file at each size limit, parsed under tracemalloc: `make test-slow`
@pytest.mark.parametrize(("module", "name", "build"), MAX_SIZE, ids=[m.NAME for m, _, _ in MAX_SIZE])
def test_a_user_file_at_its_size_limit_parses_in_bounded_memory(module, name, build):
    body = build()
    assert module.SPEC.max_bytes - 1000 < len(body) <= module.SPEC.max_bytes
    tracemalloc.start()
    try:
        parsed = module.parse(payload(body, name), DAY)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert parsed.rows.height > 5_000 and not parsed.rejects
    # ~20x the file, far under 1 GB (a 100 MB quotes file once took 11.3 GB)
    assert peak < 64 * 1024 * 1024, f"{peak / 2**20:.0f} MiB"
