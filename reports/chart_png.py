"""A chart's PNG: drawn deterministically, named by a digest of what it shows, reused by it.

Same data -> byte-identical PNG: matplotlib's default style (not the user's matplotlibrc), a
fixed DPI, text without mathtext, no "Software" tag (Agg writes no date), and data "settled"
to 9 significant digits, below DuckDB's last-bit noise. Drawing is slow (docs/scale.md), so
each PNG carries the digest of its data, title and drawing code in a tEXt chunk, and a
`ChartCache` over earlier builds (the folder being rebuilt, last night's), then gpucalc's
cache of drawn charts (warehouse/store/cache.py), hand back a PNG whose digest matches instead of
drawing it again. Redrawn or reused, the bytes are the same.
"""

from __future__ import annotations

import hashlib
import io
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
from matplotlib import style
from matplotlib.figure import Figure

from warehouse.store import cache as shared_cache

DPI = 100
STYLE = {"text.parse_math": False, "axes.titley": 1.0, "font.family": "DejaVu Sans", "font.size": 9, "axes.grid": True,
         "grid.alpha": 0.3, "legend.fontsize": 7}
DIGEST_KEY = "gpucalc-chart"
# the code that decides the pixels: this module, the drawing functions, matplotlib's version
_CODE = hashlib.sha256(
    Path(__file__).read_bytes() + (Path(__file__).parent / "charts.py").read_bytes() + matplotlib.__version__.encode()
).hexdigest()


@dataclass
class Chart:
    file: str  # file name, beside the page's index.md
    title: str  # alt text and caption
    png: bytes = b""
    data: dict = field(default_factory=dict)
    digest: str = ""
    drawn: bool = True  # False: reused from an earlier build with the same digest


class ChartCache:
    """PNGs of earlier builds (the folder being rebuilt, last night's), found by file name and digest."""

    def __init__(self, folders: Iterable[Path] = ()):
        self.folders = [f for f in folders if f.is_dir()]

    def get(self, file: str, digest: str) -> bytes | None:
        for folder in self.folders:
            path = folder / file
            if path.is_file():
                png = path.read_bytes()
                if png_text(png).get(DIGEST_KEY) == digest:
                    return png
        return None


def png_text(png: bytes) -> dict[str, str]:
    """The tEXt chunks of a PNG (keyword -> text)."""
    found, offset = {}, 8
    while offset + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        if kind == b"tEXt":
            keyword, _, text = png[offset + 8:offset + 8 + length].partition(b"\0")
            found[keyword.decode("latin-1")] = text.decode("latin-1")
        if kind == b"IEND":
            break
        offset += 12 + length
    return found


def settle(value):
    """Floats rounded to 9 significant digits, inside tuples, lists and dicts too.

    DuckDB's parallel aggregates (a calibration factor's geometric mean) can differ in the last
    bits between two runs on the same data; a chart is drawn from, and named by, settled data,
    so such noise changes neither its pixels nor its digest.
    """
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, tuple):
        return tuple(settle(v) for v in value)
    if isinstance(value, list):
        return [settle(v) for v in value]
    if isinstance(value, dict):
        return {k: settle(v) for k, v in value.items()}
    return value


def make_chart(file: str, title: str, data: dict, draw: Callable[[], Figure], cache: ChartCache | None) -> Chart:
    """Reuse an earlier PNG of exactly this chart, or draw it."""
    digest = hashlib.sha256(repr((_CODE, file, title, data)).encode()).hexdigest()
    reused = cache.get(file, digest) if cache else None
    if reused is None:  # drawn before for another warehouse or a deleted folder (warehouse/store/cache.py)?
        kept = shared_cache.read("charts", digest)
        reused = kept if kept and png_text(kept).get(DIGEST_KEY) == digest else None
    if reused is not None:
        return Chart(file, title, reused, data, digest, drawn=False)
    with style.context("default"), matplotlib.rc_context(STYLE):
        figure = draw()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None, DIGEST_KEY: digest})
    shared_cache.write("charts", digest, buffer.getvalue())
    return Chart(file, title, buffer.getvalue(), data, digest)
