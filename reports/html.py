"""HTML beside every markdown page: the same text, readable on a phone, links and images relative.

Python-Markdown (tables; toc for heading anchors) renders the page; a tree pass points links to other pages
at their .html twin and wraps every table in a horizontally scrolling box. The stylesheet is
inline and small, there is no script, and nothing is fetched from elsewhere (the favicon is an
empty data: URL, so browsers ask the server for nothing that is not there).
"""

from __future__ import annotations

import hashlib
import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

STYLE = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fff}
main{max-width:64rem;margin:0 auto;padding:0.75rem 1rem 3rem}
h1{font-size:1.5rem;line-height:1.25}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
h3{font-size:1.05rem}a{color:#0b57d0}code{font-size:0.9em;background:#f3f3f3;padding:0 0.2em;border-radius:3px}
img{max-width:100%;height:auto;display:block;margin:0.5rem 0}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:0.5rem 0 1rem}
table{border-collapse:collapse;font-size:0.85rem;white-space:nowrap}
th,td{padding:0.25rem 0.5rem;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
th{background:#f7f7f7;position:sticky;top:0}tr:nth-child(even) td{background:#fbfbfb}
"""
# Which code made a page: an HTML file with the same markdown beside it and this stamp is reused.
STAMP = hashlib.sha256(Path(__file__).read_bytes() + markdown.__version__.encode()).hexdigest()[:16]
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
</body>
</html>
"""
_MD_LINK = re.compile(r"^(?P<path>[^:?#]*?)\.md(?P<rest>#.*)?$")


class _Tidy(Treeprocessor):
    def run(self, root: ET.Element) -> None:
        for anchor in root.iter("a"):
            href = anchor.get("href", "")
            match = _MD_LINK.match(href)
            if match and "//" not in href:  # a page of the report: its HTML twin
                anchor.set("href", f"{match['path']}.html{match['rest'] or ''}")
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "table":
                    box = ET.Element("div", {"class": "scroll"})
                    parent.remove(child)
                    box.append(child)
                    parent.insert(index, box)


class _TidyExtension(Extension):
    def extendMarkdown(self, md) -> None:  # noqa: N802 - Python-Markdown's name
        md.treeprocessors.register(_Tidy(md), "gpucalc_tidy", 0)


def to_html(text: str) -> str:
    """A whole HTML page for one markdown page; its title is the page's first heading."""
    body = markdown.markdown(text, extensions=["tables", "sane_lists", "toc", _TidyExtension()], output_format="html")
    first = next((line for line in text.splitlines() if line.startswith("# ")), "# gpucalc")
    heading = re.sub(r"<[^>]+>", "", markdown.markdown(first[2:]))  # the heading's text, markup gone
    title = html.escape(html.unescape(heading).strip(), quote=False)
    return TEMPLATE.format(title=title, style=STYLE.strip(), body=body, stamp=STAMP)


def to_html_reusing(name: str, text: str, folders: list[Path]) -> str:
    """`to_html(text)`, or the HTML an earlier build made from exactly this markdown by this code."""
    for folder in folders:
        source, made = folder / name, folder / (name.removesuffix(".md") + ".html")
        try:
            if source.read_text() == text:
                page = made.read_text()
                if f'content="gpucalc report {STAMP}"' in page[:300]:
                    return page
        except OSError:  # not built there
            continue
    return to_html(text)
