"""Markdown building blocks: number formats, escaping of outside text, links, tables.

Every string that came from outside (provider, instance and region names, notes, rejected
rows' details, source references) goes through `escape` before it lands in a page; the page
machinery marks its own markup as `Md`, which `table` and `cell` leave alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, urlsplit

import polars as pl

from warehouse.questions.plain_text import fmt_number


class Md(str):
    """Text that is already markdown (a link we built, an emphasis): not escaped again."""


# Backslash escapes that both GitHub and the HTML renderer (mistune, reports/html.py) honour, for
# what could start markup mid-line: emphasis, code spans, links and images (no `[`, no link),
# table pipes. `<`, `>` and `&` become entities, so no raw HTML (and no autolink `<http://...>`)
# survives, and so does `~` (GitHub's strikethrough; an entity reads as `~` in any renderer). Line
# breaks would end a table row: spaces. Outside text never starts a line of a page.
_BACKSLASHED = re.compile(r"([\\`*_\[\]|])")
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "~": "&#126;"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
# Any character the escapes below would change: most cells (numbers, GPU and provider ids) have none.
_NEEDS_ESCAPING = re.compile(r"[\\`*_\[\]|&<>~\x00-\x1f\x7f]")


def escape(value) -> str:
    """Outside text as inert markdown: it shows as written and cannot start a link, tag or cell."""
    if value is None:
        return ""
    if isinstance(value, Md):
        return value
    text = str(value)
    if not _NEEDS_ESCAPING.search(text):
        return text
    text = _BACKSLASHED.sub(r"\\\1", _CONTROL.sub(" ", text))
    return text.translate(_ENTITIES)  # after the backslashes, which would otherwise double


def code(text) -> Md:
    """Outside text as a code span: shown verbatim (no escapes inside), fenced past its own backticks."""
    value = _CONTROL.sub(" ", "" if text is None else str(text))
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return Md(f"{fence}{pad}{value}{pad}{fence}")


def link(text, url: str) -> Md:
    """A link to an http(s) address; anything else (javascript:, data:, a bare word) stays text."""
    try:
        parts = urlsplit(url.strip()) if url else None
    except ValueError:  # e.g. an unbalanced "[" in the host
        parts = None
    if not parts or parts.scheme not in ("http", "https") or not parts.netloc:
        return Md(escape(text))
    # Characters that could end the link destination or open markup are percent-encoded.
    safe = quote(url.strip(), safe="/:?#=&%+,;@!$'*-._~")
    return Md(f"[{escape(text)}]({safe.replace('(', '%28').replace(')', '%29')})")


def page_link(text, target: str) -> Md:
    """A link to another page or file of the report (a relative path we built)."""
    return Md(f"[{escape(text)}]({quote(target, safe='/#.-_')})")


# "owner/repo@commit:path" (how bundled data and MLPerf results cite GitHub files)
_GITHUB_REF = re.compile(r"^(?P<repo>[\w.-]+/[\w.-]+)@(?P<rev>[0-9a-f]{6,40}):(?P<path>[^#\s]*)(?P<frag>#\S*)?$")


def source_link(ref) -> Md:
    """A source reference as a link where it names a web address or a GitHub file at a commit.

    The catalog gives several references as `a;b` and notes after an address
    (`https://... (price: ...)`): each address is its own link, its note plain text after it.
    """
    if ref is None:
        return Md("")
    text = str(ref).strip()
    if ";" in text:
        return Md("; ".join(source_link(part) for part in text.split(";") if part.strip()))
    if text.startswith(("http://", "https://")):
        address, _, note = text.partition(" ")
        return Md(link(address, address) + (" " + escape(note.strip()) if note.strip() else ""))
    github = _GITHUB_REF.match(text)
    if github:
        path = github["path"]
        kind = "tree" if path.endswith("/") or not path else "blob"
        return link(text, f"https://github.com/{github['repo']}/{kind}/{github['rev']}/{path}")
    return Md(escape(text))


def cell(value, formatter: Callable | None = None) -> str:
    """One table cell: formatted, escaped unless the formatter built markdown itself."""
    if value is None:
        return ""
    text = (formatter or fmt_number)(value)
    return escape(value if isinstance(value, Md) and formatter is None else text)


def table(frame: pl.DataFrame, columns: dict[str, tuple[str, Callable | None]]) -> str:
    """`columns` maps a frame column to (header, formatter); an empty frame is `_none_`.

    A formatter returning `Md` (e.g. `Md` itself, for a column of markdown we built) is trusted;
    anything else is escaped.
    """
    if frame.height == 0:
        return "_none_\n"
    headers = [escape(header) for header, _ in columns.values()]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in frame.iter_rows(named=True):
        cells = [cell(row.get(name), formatter) for name, (_, formatter) in columns.items()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def image(alt: str, target: str) -> Md:
    return Md(f"![{escape(alt)}]({quote(target, safe='/.-_')})")
