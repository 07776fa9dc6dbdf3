"""Render small Polars frames as GitHub-flavoured markdown tables."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl


def fmt_number(value, digits: int = 3) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:  # NaN
            return ""
        magnitude = abs(value)
        if magnitude >= 1e5:
            return f"{value:,.0f}"
        if magnitude >= 100:
            return f"{value:,.1f}"
        return f"{value:.{digits}g}"
    return str(value)


def fmt_usd(value) -> str:
    return "" if value is None else (f"${value:,.0f}" if abs(value) >= 100 else f"${value:,.2f}")


def fmt_pct(value) -> str:
    return "" if value is None else f"{100 * value:.0f}%"


def fmt_hours(value) -> str:
    if value is None:
        return ""
    if value >= 48:
        return f"{value / 24:.1f} d"
    if value >= 1:
        return f"{value:.1f} h"
    return f"{value * 60:.0f} min"


def table(frame: pl.DataFrame, columns: dict[str, tuple[str, Callable | None]]) -> str:
    """`columns` maps a frame column to (header, formatter)."""
    if frame.height == 0:
        return "_none_\n"
    headers = [header for header, _ in columns.values()]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in frame.iter_rows(named=True):
        cells = []
        for name, (_, formatter) in columns.items():
            value = row.get(name)
            text = (formatter or fmt_number)(value) if value is not None else ""
            cells.append(str(text).replace("|", "\\|").replace("\n", " "))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
