"""The AWS offer-file CSV: 5 metadata lines, a header, then one row per SKU x term x rate.

`filter_lines` streams a regional file (hundreds of MB) line by line and keeps only the
preamble, the header and GPU rental rows, so memory stays bounded by what is kept.
`read_offer` checks such a (filtered or whole) file for `parse`, which streams its rows.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sources.aws_pricelist.families import GPU_LINE, SOURCE, keep
from sources.kit.records import Rejects, csv_rows, whole_lines
from sources.kit.spec import SourceError

PREAMBLE = 5  # FormatVersion, Disclaimer, Publication Date, Version, OfferCode
REQUIRED = (
    "TermType", "Unit", "PricePerUnit", "Currency", "LeaseContractLength", "PurchaseOption",
    "OfferingClass", "Instance Type", "Tenancy", "Operating System", "Pre Installed S/W",
    "CapacityStatus", "Region Code",
)


@dataclass
class Offer:
    meta: dict[str, str]
    header: list[str]
    text: str

    def rows(self, rejects: Rejects) -> Iterator[tuple[int, dict[str, str]]]:
        """(1-based row after the header, values by column), streamed; a malformed row is rejected."""
        lines = iter(io.StringIO(self.text, newline=""))
        reader = csv.reader(lines, strict=True)
        for _ in range(PREAMBLE + 1):
            next(reader)
        for row_no, values, problem in csv_rows(lines, len(self.header), reader):
            if problem:
                rejects.add(row_no, "malformed_row", f"row {row_no}: {problem}", {"values": values} if values else {})
            elif values:
                yield row_no, dict(zip(self.header, values, strict=True))


def check_preamble(name: str, first: list[str]) -> None:
    if first[:1] != ["FormatVersion"]:
        shown = str([v[:40] for v in first[:3]])
        raise SourceError(
            SOURCE, f"{name}: no offer-file preamble (expected 5 metadata lines starting "
            f"'FormatVersion' before the header; first line is {shown})"
        )


def check_header(name: str, header: list[str]) -> None:
    missing = [column for column in REQUIRED if column not in header]
    if missing:
        raise SourceError(SOURCE, f"{name}: header lacks required column(s) {', '.join(missing)}")
    if len(set(header)) != len(header):
        raise SourceError(SOURCE, f"{name}: a column name appears twice in the header")


def _one(line: bytes) -> list[str]:
    return next(csv.reader([line.decode("utf-8", errors="replace").rstrip("\r\n")]), [])


def filter_lines(name: str, chunks: Iterable[bytes], max_bytes: int) -> bytes:
    """Preamble + header + GPU rows of a streamed offer file; SourceError if it is not one."""
    lines = _split(name, chunks)
    head = [line for _, line in zip(range(PREAMBLE + 1), lines, strict=False)]
    if len(head) < PREAMBLE + 1:
        raise SourceError(SOURCE, f"{name}: ended after {len(head)} line(s), before the header")
    check_preamble(name, _one(head[0]))
    header = _one(head[PREAMBLE])
    check_header(name, header)
    out = io.BytesIO()
    out.writelines(head)
    for line in lines:
        if not GPU_LINE.search(line):
            continue  # cheap pre-filter: most of the file is other families
        values = _one(line)
        # A row that does not split cleanly is kept so `parse` can reject it by number.
        if len(values) != len(header) or keep(dict(zip(header, values, strict=True))):
            out.write(line)
            if out.tell() > max_bytes:
                raise SourceError(SOURCE, f"{name}: GPU rows alone exceed {max_bytes} bytes")
    return out.getvalue()


def _split(name: str, chunks: Iterable[bytes]) -> Iterator[bytes]:
    pending = b""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line + b"\n"
    if pending:
        raise SourceError(SOURCE, f"{name}: stream ended mid-line (truncated)")


def read_offer(name: str, body: bytes) -> Offer:
    """The preamble and header of a (filtered or whole) offer file, checked; rows stream from it."""
    whole_lines(SOURCE, name, body)
    try:
        text = body.decode("utf-8-sig")
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        head = [row for _, row in zip(range(PREAMBLE + 1), reader, strict=False)]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise SourceError(SOURCE, f"{name}: not a readable CSV ({str(exc)[:200]})") from None
    check_preamble(name, head[0] if head else [])
    if len(head) <= PREAMBLE:
        raise SourceError(SOURCE, f"{name}: preamble but no header")
    offer = Offer({r[0]: r[1] for r in head[:PREAMBLE] if len(r) >= 2}, head[PREAMBLE], text)
    check_header(name, offer.header)
    return offer
