"""Reading one SkyPilot `vms.csv` payload: columns by name, numbers with named rejects.

Shared by `sources.skypilot` (every cloud) and `sources.skypilot.gcp` (host + GPU rows).
Column order differs per cloud and some clouds add columns (price_sources.md §2), so
nothing here depends on a position. Rows are streamed, never held as a list of dicts: a
catalog at the size limit parses in bounded memory.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass

from sources.kit.records import Rejects, csv_rows, whole_lines
from sources.kit.rows import RowProblem, gpu_count, memory_gb, number, usd_per_hour
from sources.kit.spec import Payload, SourceError

SOURCE = "skypilot"

# Every cloud's file has these (README v8 schema); AvailabilityZone is optional (Azure v6,
# Lambda, Vast and others leave it out).
REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region")
PRICE_COLUMNS = (("Price", "on_demand"), ("SpotPrice", "spot"))
# GpuInfo is a Python-literal dict ({'Gpus': [{..., 'MemoryInfo': {'SizeInMiB': 81920}}], ...})
# or JSON (Verda); the first GPU's size is all we need, so a regex beats evaluating it.
SIZE_IN_MIB = re.compile(r"""["']SizeInMiB["']\s*:\s*([0-9]{1,9}(?:\.[0-9]{1,6})?)""")


@dataclass
class Table:
    name: str
    header: list[str]
    text: str

    def rows(self, rejects: Rejects | None = None) -> Iterator[tuple[int, dict[str, str]]]:
        """(1-based data row, values by column); a row of the wrong width is rejected."""
        width = len(self.header)
        lines = iter(io.StringIO(self.text, newline=""))
        reader = csv.reader(lines, strict=True)
        next(reader)  # the header
        for row_no, values, problem in csv_rows(lines, width, reader):
            if problem and rejects is not None:
                rejects.add(row_no, "malformed_row", f"row {row_no}: {problem}", {"values": values} if values else {})
            elif values and not problem:
                yield row_no, {k: v.strip() for k, v in zip(self.header, values, strict=True)}


def read_table(payload: Payload) -> Table:
    """Check a payload is a readable vms.csv (SourceError if not) and return it for streaming."""
    body = payload.body
    whole_lines(SOURCE, payload.name, body)  # every catalog file ends with a newline
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(SOURCE, f"{payload.name}: not UTF-8 ({exc})") from None
    try:
        first = next(csv.reader(io.StringIO(text, newline=""), strict=True), [])
    except csv.Error as exc:
        raise SourceError(SOURCE, f"{payload.name}: not a CSV file ({exc})") from None
    header = [name.strip() for name in first]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        shown = ", ".join(header[:12])[:300]
        raise SourceError(
            SOURCE, f"{payload.name}: required column(s) {', '.join(missing)} missing; header is {shown}"
        )
    if len(set(header)) != len(header):
        raise SourceError(SOURCE, f"{payload.name}: a column name appears twice in the header")
    return Table(payload.name, header, text)


def count(row_no: int, row: dict[str, str]) -> float:
    """AcceleratorCount as a positive, plausible float; RowProblem otherwise."""
    try:
        value = number(row["AcceleratorCount"], "AcceleratorCount")
    except RowProblem as exc:
        if exc.rule != "not_a_number":
            raise RowProblem(exc.rule, f"row {row_no}: {exc.detail}") from None
        value = None
    if not value or value <= 0:
        detail = f"row {row_no}: AcceleratorCount {row['AcceleratorCount'][:40]!r} is not a positive number"
        raise RowProblem("bad_gpu_count", detail)
    try:
        return gpu_count(value, "AcceleratorCount")
    except RowProblem as exc:
        raise RowProblem(exc.rule, f"row {row_no}: {exc.detail}") from None


def price(row_no: int, row: dict[str, str], column: str) -> float | None:
    """A usable price, or None when not offered (empty or 0); RowProblem says why not."""
    try:
        value = number(row.get(column, ""), column, "unparseable_price")
    except RowProblem as exc:
        if exc.rule == "unparseable_price":
            raise RowProblem(exc.rule, f"row {row_no}: {column} {row.get(column)[:40]!r} is not a number") from None
        raise RowProblem(exc.rule, f"row {row_no}: {exc.detail}") from None
    if value is not None and value < 0:
        raise RowProblem("negative_price", f"row {row_no}: {column} is {value}")
    # SkyPilot writes 0 / empty for "not offered or unknown" (Vast SpotPrice 0.00, §2).
    return usd_per_hour(value, f"row {row_no}: {column}") if value else None


def gpu_memory(provider: str, row: dict[str, str], gpus: float) -> float | None:
    """Per-GPU memory in GB from GpuInfo's SizeInMiB, which clouds fill three ways:

    * MiB, as named (AWS 81920, Nebius, OCI, Verda): / 1024;
    * GB in the MiB field (RunPod, Shadeform write 80 for an 80 GB card): a value below 1024
      cannot be MiB of a datacentre GPU, so it is taken as GB;
    * Vast: the TOTAL of all the offer's GPUs (2x H200 = 287542), because SkyPilot's fetch_vast
      writes gpu_total_ram there: divided by the count.

    A slice (AcceleratorCount below 1: AWS g6f.large is 0.125 of an L4) reports the slice's
    share (2861 MiB), so it is divided by the fraction too: the card behind it has ~22 GB.
    """
    match = SIZE_IN_MIB.search(row.get("GpuInfo") or "")
    if not match:
        return None
    value = float(match[1])
    gb = value if value < 1024 else value / 1024
    if (provider == "vast" and gpus > 1) or gpus < 1:
        gb /= gpus
    return memory_gb(gb)
