"""Reading records one at a time, and failing them one at a time.

`read` turns a user-written CSV, JSONL or YAML file (quotes, runs, FSDL's table) into numbered
records. Whole-file problems (not UTF-8, a bad CSV header, YAML that does not parse, no records
at all) raise SourceError; a problem of one record travels with that record as a (rule, detail)
so the parser rejects just it:

* malformed_row: a CSV row with more or fewer fields than the header (a decimal comma "1,50"
  would otherwise load as 1), broken CSV quoting, or a JSONL line that is not JSON;
* not_a_mapping: a JSONL line or YAML item that is not an object of field: value;
* possibly_truncated: the last record when the file's last line has no newline, because a
  file cut mid-number ("2.75" -> "2.7") still parses.

`Rejects` collects a payload's rejects, caps them, and guards each record's handling so an
unforeseen exception rejects that record (rule parser_error) instead of the whole file.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import re
from collections.abc import Callable, Collection, Iterator
from datetime import date
from typing import NamedTuple

import polars as pl
import yaml

from sources.kit.rows import RowProblem, shown
from sources.kit.spec import Payload, Reject, SourceError

YAML_MAX_BYTES = 512 * 1024  # PyYAML builds a whole document, slowly and many times its size (docs/scale.md)
TRUNCATED = ("the file's last line has no newline, so this record may be cut short; "
             "add a final newline if it is complete")


class Record(NamedTuple):
    number: int  # 1-based among records (comments, blank lines and the CSV header not counted)
    value: object  # a dict for a well-formed record
    problem: tuple[str, str] | None = None


def decode(source: str, payload: Payload) -> str:
    body = payload.body
    if body[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise SourceError(
            source, f"{payload.url}: not UTF-8 text (it starts with a UTF-16 byte-order mark); save it as UTF-8"
        )
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            source, f"{payload.url}: not UTF-8 text (byte {body[exc.start]:#04x} at offset {exc.start}: "
            f"{exc.reason}); save it as UTF-8"
        ) from None


def whole_lines(source: str, name: str, body: bytes) -> None:
    """Refuse a line-oriented catalog body that is empty or whose last line has no newline.

    A cut can fall inside a value ("55.04" -> "55.0") and the cut row still look valid, so a body
    not ending its last line is refused whole rather than trusted row by row.
    """
    if not body.strip():
        raise SourceError(source, f"{name}: empty body")
    if not body.endswith(b"\n"):
        raise SourceError(source, f"{name}: truncated (last line has no newline)")


def read(
    source: str, payload: Payload, *, noun: str, formats: Collection[str], required: Collection[str],
    known: Collection[str] | None = None, lowercase: bool = True, list_key: str | None = None,
    kind: str | None = None,
) -> Iterator[Record]:
    """Records of a user file by its extension (or `kind`); SourceError names what makes it unusable."""
    kind = kind or payload.name.lower().rsplit(".", 1)[-1]
    if kind not in formats:
        raise SourceError(source, f"{payload.url}: {noun} file must end in {', '.join('.' + f for f in formats)}")
    if kind in ("yaml", "yml") and len(payload.body) > YAML_MAX_BYTES:
        raise SourceError(source, f"{payload.url}: YAML files are limited to {YAML_MAX_BYTES:,} bytes; use CSV")
    text = decode(source, payload)
    if kind == "csv":
        records = _csv(source, payload.url, text, required, known, lowercase)
    elif kind in ("jsonl", "ndjson"):
        records = _jsonl(text, lowercase)
    else:
        records = _yaml(source, payload.url, text, noun, list_key, lowercase)
    return _at_least_one(source, f"{payload.url}: no {noun} in file", records)


def _at_least_one(source: str, message: str, records: Iterator[Record]) -> Iterator[Record]:
    count = 0
    for count, record in enumerate(records, start=1):  # noqa: B007 - the count is the point
        yield record
    if not count:
        raise SourceError(source, message)


class _Lines:
    """Content lines (blank and # comment lines skipped); `cut` once the last line lacked a newline."""

    def __init__(self, text: str):
        self.text = text
        self.cut = False

    def __iter__(self) -> Iterator[str]:
        for line in io.StringIO(self.text, newline=""):
            start = line.lstrip()
            if not start or start[0] == "#":
                continue
            if line[-1] not in "\n\r":
                self.cut = True
            yield line


def _csv(source, url, text, required, known, lowercase) -> Iterator[Record]:
    lines = _Lines(text)
    feed = iter(lines)
    reader = csv.reader(feed, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise SourceError(source, f"{url}: CSV header line cannot be read ({exc})") from None
    if header is None:
        raise SourceError(source, f"{url}: empty file (no header line)")
    header = [h.strip().lower() if lowercase else h.strip() for h in header]
    unknown = sorted(set(header) - set(known)) if known is not None else []
    missing = [c for c in required if c not in header]
    if unknown or missing:
        raise SourceError(source, f"{url}: CSV header problem (unknown columns {unknown}, missing {missing})")
    if len(set(header)) != len(header):
        raise SourceError(source, f"{url}: CSV header names a column twice ({', '.join(header)})")
    for number, values, problem in csv_rows(feed, len(header), reader):
        if problem:
            yield Record(number, {"values": values} if values else {},
                         ("malformed_row", f"{problem} (a decimal comma, or a comma inside an unquoted value?)"
                          if values else problem))
            continue
        record = dict(zip(header, map(str.strip, values), strict=True))
        yield Record(number, record, ("possibly_truncated", TRUNCATED) if lines.cut else None)


def csv_rows(lines: Iterator[str], width: int, reader=None) -> Iterator[tuple[int, list[str], str | None]]:
    """Every row of a CSV stream after its header as (1-based number, fields, problem).

    A row is never cut or padded to fit: one whose quoting is broken (the reader starts again
    on the next line) or whose width is not the header's comes with the problem in words and
    at most its first width + 5 fields. Blank lines come as empty rows, without a problem.
    `reader`: a csv.reader already past the header over the same `lines`.
    """
    reader = reader or csv.reader(lines, strict=True)
    number = 0
    while True:
        try:
            values = next(reader, None)
        except csv.Error as exc:
            number += 1
            yield number, [], f"is not well-formed CSV ({exc})"
            reader = csv.reader(lines, strict=True)
            continue
        if values is None:
            return
        number += 1
        if values and len(values) != width:
            yield number, values[: width + 5], f"has {len(values)} fields, the header has {width}"
            continue
        yield number, values, None


def _keys(value: dict, lowercase: bool) -> dict:
    """Field names as the CSV header gets them: text, stripped, lower-case (YAML allows `8: x`)."""
    return {str(k).strip().lower(): v for k, v in value.items()} if lowercase else value


def _jsonl(text: str, lowercase: bool) -> Iterator[Record]:
    lines = _Lines(text)
    for number, line in enumerate(lines, start=1):
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:  # ValueError covers JSONDecodeError and huge ints
            yield Record(number, {}, ("malformed_row", f"is not valid JSON ({shown(str(exc), 80)})"))
            continue
        if not isinstance(value, dict):
            yield Record(number, value, ("not_a_mapping", "is not an object of field: value"))
        else:
            yield Record(number, _keys(value, lowercase), ("possibly_truncated", TRUNCATED) if lines.cut else None)


class _Loader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):
    """Safe YAML whose impossible dates and giant integers stay text, so the record that holds
    one is rejected by rule (unparseable_date, implausible_value) instead of the whole file."""


def _lenient(construct: Callable) -> Callable:
    def build(loader, node):
        try:
            return construct(loader, node)
        except (ValueError, OverflowError):
            return loader.construct_scalar(node)

    return build


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _lenient(yaml.SafeLoader.construct_yaml_timestamp))
_Loader.add_constructor("tag:yaml.org,2002:int", _lenient(yaml.SafeLoader.construct_yaml_int))


def _yaml(source, url, text, noun, list_key, lowercase) -> Iterator[Record]:
    try:
        data = yaml.load(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:
        raise SourceError(source, f"{url}: invalid YAML ({shown(str(exc), 200)})") from None
    # A bare list, or {list_key: [...]} so the file can carry other top-level notes.
    items = data.get(list_key, data) if isinstance(data, dict) and list_key else data
    if data is None:
        items = []
    if not isinstance(items, list):
        raise SourceError(source, f"{url}: expected a list of {noun} (or a '{list_key}:' list)")
    last = text.rstrip(" \t").rsplit("\n", 1)[-1]
    cut = bool(last.strip()) and not last.lstrip().startswith("#")
    for number, value in enumerate(items, start=1):
        if not isinstance(value, dict):
            yield Record(number, value, ("not_a_mapping", "is not a mapping of field: value"))
        else:
            problem = ("possibly_truncated", TRUNCATED) if cut and number == len(items) else None
            yield Record(number, _keys(value, lowercase), problem)


_SPACE = re.compile(r"[ \t\r\n]*")


def json_items(source: str, where: str, body: bytes, window: int = 1 << 22) -> Iterator[object]:
    """Items of a top-level JSON array, decoded one at a time from a sliding text window, so a
    catalog of hundreds of MB never becomes one Python structure; a lone object is one item.
    SourceError (as the items are read) if the body is not such JSON."""
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8-sig")()
    state = {"buf": "", "i": 0, "fed": 0, "window": window}

    def more() -> bool:
        if state["fed"] >= len(body):
            return False
        piece = body[state["fed"]:state["fed"] + state["window"]]
        state["fed"] += len(piece)
        try:
            text = utf8.decode(piece, final=state["fed"] >= len(body))
        except UnicodeDecodeError as exc:
            raise SourceError(source, f"{where}: body is not UTF-8 JSON ({exc.reason})") from None
        state["buf"], state["i"] = state["buf"][state["i"]:] + text, 0
        return True

    def peek() -> str:
        while True:
            state["i"] = _SPACE.match(state["buf"], state["i"]).end()
            if state["i"] < len(state["buf"]):
                return state["buf"][state["i"]]
            if not more():
                return ""

    def item() -> object:
        while True:
            try:
                value, end = decoder.raw_decode(state["buf"], state["i"])
                if end < len(state["buf"]) or state["fed"] >= len(body):  # a number may go on
                    state["i"] = end
                    return value
            except json.JSONDecodeError as exc:
                if state["fed"] >= len(body):
                    raise SourceError(source, f"{where}: body is not JSON ({exc.msg} at char {exc.pos})") from None
            except RecursionError:
                raise SourceError(source, f"{where}: body is not JSON (nested too deeply)") from None
            if len(state["buf"]) - state["i"] >= state["window"]:
                state["window"] *= 2  # an item longer than the window: read on in larger steps
            more()

    first = peek()
    if first == "{":
        yield item()
    elif first == "[":
        state["i"] += 1
        if peek() == "]":
            state["i"] += 1
        else:
            while True:
                peek()
                yield item()
                sep = peek()
                state["i"] += 1
                if sep == "]":
                    break
                if sep != ",":
                    raise SourceError(source, f"{where}: body is not JSON (expected ',' or ']', found {sep!r})")
    elif not first:
        raise SourceError(source, f"{where}: empty body")
    else:
        found = item()  # SourceError here if it is not JSON at all
        raise SourceError(source, f"{where}: expected a list of records or one record object, found {shown(found)}")
    if peek():
        raise SourceError(source, f"{where}: body is not JSON (extra data after the end)")


class Rejects:
    """A payload's rejects: the first LIMIT in full, then one too_many_rejects summary."""

    LIMIT = 1000

    def __init__(self, source: str):
        self.source = source
        self.listed: list[Reject] = []
        self.more = 0
        self.first_more = 0

    def add(self, row: int, rule: str, detail: str, record: object = None) -> None:
        if len(self.listed) < self.LIMIT:
            self.listed.append(Reject(self.source, row, rule, detail, kept(record)))
        else:
            self.first_more = self.first_more or row
            self.more += 1

    def count_unlisted(self, count: int, first_row: int) -> None:
        """`count` more rejects past the listed ones, counted without building each."""
        self.first_more = self.first_more or first_row
        self.more += count

    def guard(self, row: int, record: object, where: str) -> _Guard:
        """`with rejects.guard(n, record, "quote 3"):` - a failure inside rejects record n only."""
        return _Guard(self, row, record, where)

    def result(self, by_row: bool = False) -> list[Reject]:
        listed = sorted(self.listed, key=lambda r: r.source_row) if by_row else list(self.listed)
        if self.more:
            detail = f"{self.more:,} more rejected rows not listed (the first {self.LIMIT} are); fix the file's format"
            listed.append(Reject(self.source, self.first_more, "too_many_rejects", detail))
        return listed


class _Guard:
    __slots__ = ("rejects", "row", "record", "where")

    def __init__(self, rejects: Rejects, row: int, record: object, where: str):
        self.rejects, self.row, self.record, self.where = rejects, row, record, where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or isinstance(exc, SourceError) or not isinstance(exc, Exception):
            return False
        where = self.where
        if isinstance(exc, RowProblem):
            self.rejects.add(self.row, exc.rule, f"{where} {exc.detail}".strip(), self.record)
        else:  # a record nobody foresaw: reject it, say what broke, keep reading
            what = f"{type(exc).__name__}: {shown(str(exc), 100)}"
            self.rejects.add(self.row, "parser_error", f"{where} could not be read ({what})".strip(), self.record)
        return True


def kept(record: object) -> dict:
    """The record as a Reject keeps it: scalars only, long text cut, at most 40 fields."""
    if not isinstance(record, dict):
        return {} if record is None else {"value": shown(record, 200)}
    out = {}
    for i, (key, value) in enumerate(record.items()):
        if i == 40:
            out["..."] = f"{len(record) - 40} more fields"
            break
        out[key if isinstance(key, str) and len(key) <= 60 else shown(key)] = _scalar(value)
    return out


def _scalar(value: object) -> object:
    if value is None or isinstance(value, bool) or (isinstance(value, int) and abs(value) < 2**53):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and len(value) <= 200:
        return value
    if isinstance(value, date):
        return value.isoformat()
    return shown(value, 200)


def where(label: str, number: int, name: object, missing: str) -> str:
    """'quote 3 (8x H200)' for details; `missing` when the name is not short text."""
    shown_name = name.strip() if isinstance(name, str) and name.strip() and len(name) <= 80 else missing
    return f"{label} {number} ({shown_name})"


def first_of_each(frame: pl.DataFrame, key: list[str], rejects: Rejects, detail: Callable[[dict], str]) -> pl.DataFrame:
    """Keep the first row of each `key`; later copies become duplicate_row rejects. Done in Polars
    so a catalog at its size limit needs no Python set of a million keys."""
    first = frame.select(pl.struct(key).is_first_distinct()).to_series()
    if first.all():
        return frame
    copies = frame.filter(~first)
    room = max(0, Rejects.LIMIT - len(rejects.listed))
    for row in copies.head(room).iter_rows(named=True):
        rejects.add(row["source_row"], "duplicate_row", detail(row))
    if copies.height > room:
        rejects.count_unlisted(copies.height - room, copies["source_row"][room])
    return frame.filter(first)
