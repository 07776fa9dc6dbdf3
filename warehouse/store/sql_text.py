"""SQL statements kept as files, in a `sql/` folder beside the module that runs them.

A statement of more than a few lines reads, diffs and runs by hand better as SQL than as a
Python string. The files are package data (pyproject.toml), so an installed gpucalc reads them
as a checkout does.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

# `{name}` marks where the caller puts identifiers it builds (a table, a column list): only a bare
# word in braces, so DuckDB's own braces (struct literals such as {gpu: gpu}) are left alone.
PART = re.compile(r"\{(\w+)\}")


@cache  # the files do not change while gpucalc runs
def sql_text(package: str, name: str, **parts: str) -> str:
    """The statement in `<package>/sql/<name>` (e.g. "reports", "live_sources.sql"), each `{part}`
    in it replaced by `parts[part]`. The parts given must be exactly those the file names, so a
    marker can neither reach DuckDB unfilled nor a part go unused."""
    text = (resources.files(package) / "sql" / name).read_text(encoding="utf-8")
    named = set(PART.findall(text))
    if named != parts.keys():
        raise ValueError(f"{package}/sql/{name} takes parts {sorted(named)}, was given {sorted(parts)}")
    return PART.sub(lambda found: parts[found.group(1)], text)
