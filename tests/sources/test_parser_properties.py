"""Every source's parser, fed junk: it returns contract rows and named rejects, or refuses the
payload with a SourceError, and nothing else escapes.

Three kinds of input per source, all deterministic (derandomize) and bounded in time (deadline):
arbitrary bytes; byte-level mutations of the real-format fixtures (flips, cuts at any point,
duplicated or deleted lines, inserted commas, quotes and NULs, numbers replaced by nan, inf,
1e308, -1 or huge ints, dates replaced by ints); and value-level mutations that keep the file
well-formed (one JSON/YAML value or one CSV cell replaced by something hostile), which reach
the per-record code the byte mutations mostly cannot.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sources import (
    aws_pricelist,
    azure_retail,
    cloud_gpus_com,
    ec2instances_info,
    fsdl,
    lambda_cloud,
    quotes_file,
    runpod,
    skypilot,
    user_runs,
    vast,
)
from sources.kit.contracts import BENCHMARK_REQUIRED, BENCHMARK_RESULT, PRICE_QUOTE, PRICE_REQUIRED
from sources.kit.spec import Parsed, Payload, SourceError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DAY = date(2026, 6, 2)
# Per source and strategy: 20 keeps the file near 8 s on the 2-core machine (3 x 17 cases x 20 parses);
# GPUCALC_PROPERTY_EXAMPLES=500 runs a deeper, minutes-long hunt.
EXAMPLES = int(os.environ.get("GPUCALC_PROPERTY_EXAMPLES", "20"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=2000, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass(frozen=True)
class Case:
    module: object
    name: str  # payload name: its extension picks the format for user files
    path: Path
    url: str
    provider: str | None = None

    def payload(self, body: bytes) -> Payload:
        return Payload(self.module.NAME, self.name, body, self.url, self.provider)

    @property
    def body(self) -> bytes:
        return self.path.read_bytes()


def case(module, folder: str, name: str, provider: str | None = None, url: str | None = None) -> Case:
    path = FIXTURES / folder / name
    return Case(module, name, path, url or str(path), provider)


CASES = [
    case(aws_pricelist, "aws_pricelist", "us-east-1.csv", "aws", aws_pricelist.URL.format(region="us-east-1")),
    case(azure_retail, "azure_retail", "page-0001.json"),
    case(azure_retail, "azure_retail", "page-0002.json"),
    case(cloud_gpus_com, "cloud_gpus_com", "cloud_gpu.json"),
    case(ec2instances_info, "ec2instances_info", "instances.json"),
    case(fsdl, "fsdl", "cloud-gpus.csv"),
    case(lambda_cloud, "lambda_cloud", "instance_types.json", "lambda"),
    case(quotes_file, "quotes_file", "quotes.csv"),
    case(quotes_file, "quotes_file", "quotes.yaml"),
    case(runpod, "runpod", "gpu_types.json", "runpod"),
    case(skypilot, "skypilot", "aws_vms.csv", "aws"),
    case(skypilot, "skypilot", "gcp_vms.csv", "gcp"),
    case(skypilot, "skypilot", "vast_vms.csv", "vast"),
    case(skypilot, "skypilot", "verda_vms.csv", "verda"),
    case(user_runs, "user_runs", "runs.csv"),
    case(user_runs, "user_runs", "runs.jsonl"),
    case(vast, "vast", "bundles.json", "vast"),
]
IDS = [f"{c.module.NAME}-{c.name}" for c in CASES]


# --- the property -------------------------------------------------------------------------------

def outcome(c: Case, body: bytes) -> Parsed | None:
    """Parse; None for a refused payload. Any other exception fails the test."""
    try:
        parsed = c.module.parse(c.payload(body), DAY)
    except SourceError as exc:
        assert exc.message, "a SourceError must say why"
        return None
    assert isinstance(parsed, Parsed)
    check(parsed, BENCHMARK_RESULT if c.module is user_runs else PRICE_QUOTE)
    return parsed


def check(parsed: Parsed, schema: dict) -> None:
    rows = parsed.rows
    assert dict(rows.schema) == schema, "dtypes exactly as in the contract"
    required = BENCHMARK_REQUIRED if schema is BENCHMARK_RESULT else PRICE_REQUIRED
    for column in required:
        assert rows[column].null_count() == 0, f"{column} is null in a returned row"
    for column, dtype in schema.items():
        values = rows[column].drop_nulls()
        if dtype == pl.Float64 and values.len():
            assert values.is_finite().all(), f"{column} has a non-finite value"
        if dtype == pl.Date and values.len():
            assert date(2000, 1, 1) <= values.min() and values.max() <= date(2100, 12, 31), column
    if schema is PRICE_QUOTE and rows.height:
        assert (rows["gpus_per_instance"] > 0).all() and (rows["gpus_per_instance"] <= 1024).all()
        assert (rows["usd_per_instance_hour"] <= 1e6).all()
    for reject in parsed.rejects:
        assert isinstance(reject.rule, str) and reject.rule, reject
        assert isinstance(reject.detail, str) and reject.detail.strip(), reject
        assert isinstance(reject.row, dict) and isinstance(reject.source_row, int)


# --- byte-level mutations -----------------------------------------------------------------------

NASTY_NUMBERS = [b"nan", b"inf", b"-inf", b"1e308", b"1e300", b"-1", b"0", b"9" * 30, b"1e999", b"NaN", b"Infinity"]
NUMBER = re.compile(rb"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
DATE = re.compile(rb"\d{4}-\d{2}-\d{2}")


@st.composite
def byte_mutation(draw, body: bytes) -> bytes:
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "cut", "dup_line", "del_line", "insert", "number", "date"]))
        at = draw(st.integers(0, max(0, len(body) - 1)))
        if kind == "flip" and body:
            body = body[:at] + bytes([body[at] ^ draw(st.integers(1, 255))]) + body[at + 1:]
        elif kind == "cut":
            body = body[:at]
        elif kind in ("dup_line", "del_line"):
            lines = body.splitlines(keepends=True)
            if lines:
                n = draw(st.integers(0, len(lines) - 1))
                lines[n:n + 1] = [lines[n]] * 2 if kind == "dup_line" else []
                body = b"".join(lines)
        elif kind == "insert":
            body = body[:at] + draw(st.sampled_from([b",", b'"', b"\x00", b"'", b"\n", b"#", b"{", b"]"])) + body[at:]
        else:
            found = list((NUMBER if kind == "number" else DATE).finditer(body))
            if found:
                match = found[draw(st.integers(0, len(found) - 1))]
                new = draw(st.sampled_from(NASTY_NUMBERS)) if kind == "number" else b"20260101"
                body = body[:match.start()] + new + body[match.end():]
    return body


# --- value-level mutations (the file stays well-formed) ------------------------------------------

HOSTILE = [
    math.nan, math.inf, -math.inf, 1e308, 1e300, -1, 0, 10**30, 10**400, 20260101, "", " ", None, True,
    [], [1, 2], {}, {"a": 1}, "nan", "inf", "1e308", "1,50", "2026-13-45", "20260101", "-", "$1e999", "x" * 300,
]
HOSTILE_CELLS = ["nan", "inf", "1e308", "1e300", "-1", "0", "9" * 30, "", "1,50", "2026-13-45", "20260101", "$-",
                 "1e999", '"', "x" * 300, "Infinity"]


def leaves(value, path=()):
    """Paths to every value inside a JSON/YAML document (containers included)."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))


def replaced(doc, path, new):
    if not path:
        return new
    head, *rest = path
    copy = dict(doc) if isinstance(doc, dict) else list(doc)
    copy[head] = replaced(doc[head], rest, new)
    return copy


@st.composite
def value_mutation(draw, c: Case) -> bytes:
    body = c.body
    if c.name.endswith((".csv",)):
        rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))
        for _ in range(draw(st.integers(1, 3))):
            r = draw(st.integers(0, len(rows) - 1))
            if rows[r]:
                rows[r][draw(st.integers(0, len(rows[r]) - 1))] = draw(st.sampled_from(HOSTILE_CELLS))
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue().encode()
    if c.name.endswith(".jsonl"):
        docs = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        doc = docs[0]
        for _ in range(draw(st.integers(1, 3))):
            paths = list(leaves(doc))
            doc = replaced(doc, draw(st.sampled_from(paths)), draw(st.sampled_from(HOSTILE)))
        return (json.dumps(doc) + "\n").encode()
    load = (lambda b: yaml.safe_load(b)) if c.name.endswith(".yaml") else json.loads
    doc = load(body)
    for _ in range(draw(st.integers(1, 3))):
        doc = replaced(doc, draw(st.sampled_from(list(leaves(doc)))), draw(st.sampled_from(HOSTILE)))
    if c.name.endswith(".yaml"):
        return yaml.safe_dump(doc, allow_unicode=True).encode()
    return json.dumps(doc, default=str).encode()


# --- the tests ----------------------------------------------------------------------------------

@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_the_fixture_itself_parses(c):
    assert outcome(c, c.body) is not None


@pytest.mark.parametrize("c", CASES, ids=IDS)
@SETTINGS
@given(body=st.binary(max_size=600))
def test_arbitrary_bytes(c, body):
    outcome(c, body)


@pytest.mark.parametrize("c", CASES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_byte_mutations_of_the_fixture(c, data):
    outcome(c, data.draw(byte_mutation(c.body)))


@pytest.mark.parametrize("c", CASES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_value_mutations_of_the_fixture(c, data):
    outcome(c, data.draw(value_mutation(c)))
