"""AWS Price List source: the filtered offer-file fixture, the preamble trap, streaming and faults."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import requests

from sources import aws_pricelist
from sources.kit.spec import Payload, SourceError
from tests.sources.fakes import fake_session

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "aws_pricelist" / "us-east-1.csv"
DAY = date(2026, 3, 1)
URL = aws_pricelist.URL.format(region="us-east-1")


def parse(body: bytes | None = None):
    raw = FIXTURE.read_bytes() if body is None else body
    return aws_pricelist.parse(Payload("aws_pricelist", "us-east-1.csv", raw, URL, "aws"), DAY)


def table(parsed, with_row: bool = True) -> set[tuple]:
    return {
        (r["instance_type"], r["pricing"], r["gpu_name"], r["gpus_per_instance"],
         round(r["usd_per_instance_hour"], 9), *([r["source_row"]] if with_row else []))
        for r in parsed.rows.to_dicts()
    }


def without_rows(expected: set[tuple]) -> set[tuple]:
    return {e[:-1] for e in expected}


EXPECTED = {
    ("p5.48xlarge", "on_demand", "H100", 8.0, 55.04, 1),
    ("p5.48xlarge", "reserved_1y", "H100", 8.0, 33.0, 6),  # All Upfront 289080 / 8760 h + 0/h
    ("p5.48xlarge", "reserved_3y", "H100", 8.0, 24.0, 8),  # All Upfront 630720 / 26280 h + 0/h
    ("p5.4xlarge", "on_demand", "H100", 1.0, 6.88, 12),
    ("g6e.12xlarge", "on_demand", "L40S", 4.0, 10.49264, 13),
    ("g6f.large", "on_demand", "L4", 0.125, 0.2022, 14),  # offer file says GPU 1: a 1/8 slice
    ("g5.xlarge", "on_demand", "A10G", 1.0, 1.006, 17),
}


# --- parse: hand-computed rows ----------------------------------------------------------------

def test_fixture_rows_by_hand():
    parsed = parse()
    assert table(parsed) == EXPECTED
    row = parsed.rows.row(0, named=True)
    assert (row["provider"], row["region"], row["zone"], row["currency"], row["source"]) == (
        "aws", "us-east-1", None, "USD", "aws_pricelist")
    assert row["source_ref"] == URL + "#version=20260220182959"
    # per GPU-hour is derived downstream; here p5.48xlarge stays a whole-instance price
    assert 55.04 / 8 == pytest.approx(6.88)


def test_out_of_scope_rows_vanish_and_real_problems_are_rejected():
    # Windows (2), Dedicated (3), unused reservation (4), SQL (5), No Upfront (10),
    # convertible (11), Host tenancy (16), m5 (18) and the $0 p5e row (19) are silent.
    parsed = parse()
    assert [(r.rule, r.source_row, r.detail) for r in parsed.rejects] == [
        ("gpu_count_mismatch", 15, "row 15: p4d.24xlarge has 8 GPUs, offer file says 4"),
        ("missing_upfront_fee", 20,
         "row 20: All Upfront 1yr reservation for g6e.12xlarge in us-east-1 has no upfront fee"),
    ]


def test_unparseable_price_and_duplicate_on_demand_rows_are_rejected():
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    first = lines[6]
    bad = first.replace(b'"55.0400000000","USD"', b'"n/a","USD"')
    parsed = parse(b"".join([*lines, bad, first]))
    assert [(r.rule, r.source_row) for r in parsed.rejects] == [
        ("gpu_count_mismatch", 15), ("missing_upfront_fee", 20), ("unparseable_price", 21),
        ("duplicate_row", 22),
    ]
    assert parsed.rejects[2].detail == "row 21: PricePerUnit 'n/a' is not a number"


# --- parse: the preamble trap and other whole-file faults -------------------------------------

def test_a_file_without_the_five_line_preamble_raises():
    body = b"".join(FIXTURE.read_bytes().splitlines(keepends=True)[5:])
    with pytest.raises(SourceError, match=r"\[aws_pricelist\] us-east-1.csv: no offer-file preamble"):
        parse(body)


def test_a_changed_header_raises_naming_the_column():
    body = FIXTURE.read_bytes().replace(b'"Instance Type"', b'"InstanceType"', 1)
    with pytest.raises(SourceError, match="header lacks required column.s. Instance Type"):
        parse(body)


def test_a_partial_last_line_raises_and_a_short_row_is_rejected():
    body = FIXTURE.read_bytes()
    with pytest.raises(SourceError, match="truncated"):
        parse(body[:-40])
    parsed = parse(body + b'"ABC","JRTCKXETXF","OnDemand"\n')
    assert (parsed.rejects[-1].rule, parsed.rejects[-1].source_row) == ("malformed_row", 21)
    with pytest.raises(SourceError, match="empty body"):
        parse(b"")


# --- fetch: streaming filter ------------------------------------------------------------------

def published_file(filler_rows: int = 5000) -> bytes:
    """The fixture's rows plus thousands of non-GPU rows, as the full regional file would be."""
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    m5 = lines[6 + 17]  # the m5.large row
    assert b'"m5.large"' in m5
    return b"".join([*lines[:6], *[m5] * filler_rows, *lines[6:]])


def test_fetch_streams_and_keeps_only_preamble_header_and_gpu_rows():
    raw = published_file()
    session, fake = fake_session({URL: [raw]})
    (got,) = aws_pricelist.fetch(session, DAY, regions=("us-east-1",))
    assert (got.name, got.url, got.provider) == ("us-east-1.csv", URL, "aws")
    lines = got.body.splitlines(keepends=True)
    source = FIXTURE.read_bytes().splitlines(keepends=True)
    assert lines[:6] == source[:6]  # 5 metadata lines + header, byte for byte
    # fixture rows the documented filter keeps: Linux/NA/Used/Shared-or-Host GPU rows
    kept = [1, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 20]
    assert lines[6:] == [source[5 + n] for n in kept]
    assert len(got.body) < len(raw) / 10
    # source_row now counts rows of the kept (filtered) payload
    assert table(aws_pricelist.parse(got, DAY), with_row=False) == without_rows(EXPECTED)
    assert len(fake.calls) == 1


def test_fetch_retries_a_500_through_the_shared_session():
    session, fake = fake_session({URL: [(500, b"", {}), published_file(10)]})
    (got,) = aws_pricelist.fetch(session, DAY, regions=("us-east-1",))
    assert table(aws_pricelist.parse(got, DAY), with_row=False) == without_rows(EXPECTED)
    assert len(fake.calls) == 2


def test_fetch_timeout_fails_that_region_and_all_failing_raises():
    other = aws_pricelist.URL.format(region="eu-west-1")
    session, _ = fake_session({URL: [requests.Timeout("read timed out")], other: [published_file(10)]})
    got = aws_pricelist.fetch(session, DAY, regions=("us-east-1", "eu-west-1"))
    assert [p.name for p in got] == ["eu-west-1.csv"]
    session, _ = fake_session({URL: [requests.Timeout("read timed out")]})
    with pytest.raises(SourceError, match=r"every region failed: timed out talking to pricing\.us-east-1\.amazonaws"
                                          r"\.com \(us-east-1\)"):
        aws_pricelist.fetch(session, DAY, regions=("us-east-1",))


def test_a_source_with_no_network_says_so_once_not_once_per_region():
    regions = ("us-east-1", "us-east-2", "eu-west-1", "eu-central-1")
    unresolved = requests.ConnectionError("Failed to resolve 'pricing.us-east-1.amazonaws.com' "
                                          "(NameResolutionError: Name or service not known)")
    session, _ = fake_session({aws_pricelist.URL.format(region=r): [unresolved] for r in regions})
    with pytest.raises(SourceError) as info:
        aws_pricelist.fetch(session, DAY, regions=regions)
    assert info.value.message == ("every region failed: cannot resolve pricing.us-east-1.amazonaws.com "
                                  "(no network or DNS) (us-east-1, us-east-2 and 2 more)")


@pytest.mark.parametrize(("reply", "message"), [
    (published_file(10)[:-30], "stream ended mid-line"),
    ((200, published_file(10)[:3000], {"Content-Length": "999999"}), r"ended the response early .*\(us-east-1\)"),
    (b"".join(published_file(10).splitlines(keepends=True)[5:]), "no offer-file preamble"),
    (published_file(10).replace(b'"TermType"', b'"Term Type"', 1), "lacks required column.s. TermType"),
    ((404, b"NoSuchKey", {}), "HTTP 404"),
])
def test_fetch_refuses_a_broken_stream(reply, message):
    session, _ = fake_session({URL: [reply]})
    with pytest.raises(SourceError, match=message):
        aws_pricelist.fetch(session, DAY, regions=("us-east-1",))


def test_memory_per_gpu_is_the_instance_total_over_the_count():
    parsed = parse()
    memory = dict(zip(parsed.rows["instance_type"], parsed.rows["gpu_memory_gb"], strict=False))
    assert memory["p5.48xlarge"] == 80.0  # "640 GB" / 8


def test_hostile_prices_are_one_named_reject():
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    first = lines[6]
    huge = first.replace(b'"55.0400000000","USD"', b'"1e308","USD"')
    parsed = parse(b"".join([*lines[:6], huge, *lines[7:]]))
    assert ("implausible_value", 1) in [(r.rule, r.source_row) for r in parsed.rejects]
    assert ("g5.xlarge", "on_demand") in {(r["instance_type"], r["pricing"]) for r in parsed.rows.to_dicts()}


def test_spec_limit_matches_what_fetch_keeps():
    assert aws_pricelist.SPEC.max_bytes == aws_pricelist.MAX_BYTES == 16 * 1024 * 1024
