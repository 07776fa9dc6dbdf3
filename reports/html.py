"""HTML beside every markdown page: the same text, readable on a phone, links and images relative.

mistune (CommonMark with GFM tables) renders the page: headings get the ids Python-Markdown's toc
gave them, links to other pages point at their .html twin and every table sits in a horizontally
scrolling box. The writers escape outside text themselves (reports/markdown.py); as a second line,
raw HTML in a page shows as text and a link or image to a javascript: (or any unlisted scheme)
URL goes nowhere. The stylesheet is inline and small, and so is the one script, on pages with a
table: it sorts a table by the header clicked and filters its rows by a box above it, reading and
moving only the page's own cells (no HTML is built from text). Nothing is fetched from elsewhere
(the favicon is an empty data: URL, so browsers ask the server for nothing that is not there).
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from pathlib import Path

import mistune
from mistune.plugins import import_plugin

from warehouse.store import cache as shared_cache

STYLE = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fff}
main{max-width:76rem;margin:0 auto;padding:0.75rem 1rem 3rem}
h1{font-size:1.5rem;line-height:1.25}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
h3{font-size:1.05rem}a{color:#0b57d0}code{font-size:0.9em;background:#f3f3f3;padding:0 0.2em;border-radius:3px}
img{max-width:100%;height:auto;display:block;margin:0.5rem 0}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:0.5rem 0 1rem}
table{border-collapse:collapse;font-size:0.85rem;white-space:nowrap}
th,td{padding:0.25rem 0.5rem;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
th{background:#f7f7f7;position:sticky;top:0}tr:nth-child(even) td{background:#fbfbfb}
th.sort{cursor:pointer}th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
input.filter{font:inherit;margin:0.5rem 0 0;padding:0.2rem 0.4rem;width:16rem;max-width:90%}
"""
# Sorting and filtering of every table, in the browser: a number-aware sort per header click (again:
# the other way), and a box above each table that keeps the rows whose text holds what is typed.
SCRIPT = """
(function () {
  function number(text) {
    var bare = text.replace(/[$,%±\\s]/g, "");
    return /^[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?$/i.test(bare) ? parseFloat(bare) : null;
  }
  function compare(a, b) {
    var x = number(a), y = number(b);
    if (x !== null && y !== null) return x - y;
    if (x !== null || y !== null) return x !== null ? -1 : 1;
    if (!a || !b) return a ? -1 : b ? 1 : 0;
    return a.localeCompare(b, "en", {numeric: true});
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (table) {
    var body = table.tBodies[0], head = table.tHead;
    if (!body || !head || !head.rows.length) return;
    var box = document.createElement("input");
    box.type = "search";
    box.className = "filter";
    box.placeholder = "filter these rows";
    box.setAttribute("aria-label", "filter the rows of the table below");
    box.addEventListener("input", function () {
      var want = box.value.trim().toLowerCase();
      Array.prototype.forEach.call(body.rows, function (row) {
        row.hidden = want !== "" && row.textContent.toLowerCase().indexOf(want) < 0;
      });
    });
    var holder = table.parentNode;
    holder.parentNode.insertBefore(box, holder);
    Array.prototype.forEach.call(head.rows[0].cells, function (th, column) {
      th.className = "sort";
      th.title = "sort by this column";
      th.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(head.rows[0].cells, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = compare(a.cells[column].textContent.trim(), b.cells[column].textContent.trim());
          return up ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
"""
# Which code made a page: an HTML file with the same markdown beside it and this stamp is reused.
STAMP = hashlib.sha256(Path(__file__).read_bytes() + mistune.__version__.encode()).hexdigest()[:16]
TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="gpucalc report {stamp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="data:,">
<style>{style}</style>
</head>
<body>
<main>
{body}
</main>
{script}</body>
</html>
"""
_MD_LINK = re.compile(r"^(?P<path>[^:?#]*?)\.md(?P<rest>#.*)?$")
_TAG = re.compile(r"<[^>]+>")
# Where CommonMark's inline syntax can start: code spans, emphasis, links and images, autolinks
# and raw HTML, entities, backslash escapes, line breaks (no plugin adds inline syntax here).
_INLINE_SYNTAX = re.compile(r"[\\`*_\[\]!<&\n]")
_TABLE = import_plugin("table")


class _Page(mistune.HTMLRenderer):
    """One page's HTML; a fresh one per page, as heading ids must be unique only within a page."""

    def __init__(self) -> None:
        super().__init__(escape=True)  # raw HTML shows as text: a tag a writer failed to escape stays inert
        self._ids: set[str] = set()

    def text(self, text: str) -> str:
        # escape=True would escape the `&` of the writers' own entities (`&lt;`, `&#126;`) too and show
        # them as written; decode them first, as CommonMark says, then escape everything.
        return mistune.safe_entity(text)

    def heading(self, text: str, level: int, **attrs) -> str:
        # The id Python-Markdown's toc gave it (pages link to e.g. #workloads, readers bookmark others):
        # the text, tags gone, ASCII-folded, word characters and hyphens only, then _1, _2... if taken.
        name = " ".join(html.unescape(_TAG.sub("", text)).split())
        name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
        slug = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", name).strip().lower())
        if slug in self._ids or not slug:
            slug = next(f"{slug}_{n}" for n in range(1, len(self._ids) + 2) if f"{slug}_{n}" not in self._ids)
        self._ids.add(slug)
        return super().heading(text, level, id=slug)

    def link(self, text: str, url: str, title: str | None = None) -> str:
        match = _MD_LINK.match(url)
        if match and "//" not in url:  # a page of the report: its HTML twin
            url = f"{match['path']}.html{match['rest'] or ''}"
        return super().link(text, url, title)

    def table(self, text: str) -> str:  # the table plugin's markup, in a box that scrolls on a phone
        return f'<div class="scroll"><table>\n{text}</table></div>\n'


class _Inline(mistune.InlineParser):
    """mistune's inline parser, with text that holds no inline syntax passed through as one run
    of text, as the parser itself would return it: the report's tables are mostly plain-number
    cells, and parsing each one is a large share of a report's build (docs/scale.md)."""

    def __call__(self, s: str, env):
        if _INLINE_SYNTAX.search(s) is None:
            return [{"type": "text", "raw": s}]
        return super().__call__(s, env)


def _render(text: str) -> str:
    return mistune.Markdown(renderer=_Page(), inline=_Inline(), plugins=[_TABLE])(text)


def to_html(text: str) -> str:
    """A whole HTML page for one markdown page; its title is the page's first heading."""
    first = next((line for line in text.splitlines() if line.startswith("# ")), "# gpucalc")
    heading = _TAG.sub("", _render(first[2:]))  # the heading's text, markup gone
    title = html.escape(html.unescape(heading).strip(), quote=False)
    body = _render(text)
    script = f"<script>{SCRIPT.strip()}</script>\n" if "<table>" in body else ""
    return TEMPLATE.format(title=title, style=STYLE.strip(), body=body, stamp=STAMP, script=script)


def to_html_reusing(name: str, text: str, folders: list[Path]) -> str:
    """`to_html(text)`, or the HTML an earlier build made from exactly this markdown by this code:
    in `folders` (last night's report), else in the cache (warehouse/store/cache.py), where any
    warehouse's page with the same text left it. Rendering is a large share of a report's
    build (docs/scale.md)."""
    for folder in folders:
        source, made = folder / name, folder / (name.removesuffix(".md") + ".html")
        try:
            if source.read_text() == text:
                page = made.read_text()
                if _made_here(page):
                    return page
        except OSError:  # not built there
            continue
    key = hashlib.sha256(f"{STAMP}\n{text}".encode()).hexdigest()
    kept = shared_cache.read("html", key)
    if kept is not None and _made_here(page := kept.decode(errors="replace")):
        return page
    page = to_html(text)
    shared_cache.write("html", key, page.encode())
    return page


def _made_here(page: str) -> bool:
    return f'content="gpucalc report {STAMP}"' in page[:300]
