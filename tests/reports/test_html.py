"""The HTML renderer on hostile markdown, as a second line behind the writers' escaping: nothing becomes live."""

import mistune
from hypothesis import given
from hypothesis import strategies as st

from reports import html
from reports.html import to_html


def body(text: str) -> str:
    page = to_html(text)
    return page[page.index("<main>\n") + len("<main>\n"):page.index("\n</main>")]


def test_raw_html_shows_as_text():
    assert body("<b>x</b> <script>alert(1)</script> <img src=x onerror=alert(1)>") == (
        "<p>&lt;b&gt;x&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;</p>\n")
    assert body('<div onclick="x()">\nblock\n</div>') == (
        "<p>&lt;div onclick=&quot;x()&quot;&gt;\nblock\n&lt;/div&gt;</p>\n")


def test_script_links_and_images_go_nowhere():
    text = ("[a](javascript:alert(1)) [b](JaVaScRiPt:x) [c](java&#115;cript:x) [d](%6Aavascript:x) "
            "[e](data:text/html,x) ![f](javascript:x) <javascript:x> [g](https://e.com/?a=1&b=2)")
    assert body(text) == (
        '<p><a href="#harmful-link">a</a> <a href="#harmful-link">b</a> <a href="#harmful-link">c</a> '
        '<a href="#harmful-link">d</a> <a href="#harmful-link">e</a> <img src="#harmful-link" alt="f" /> '
        '<a href="#harmful-link">javascript:x</a> <a href="https://e.com/?a=1&amp;b=2">g</a></p>\n')


def test_links_to_pages_point_at_their_html_twin():
    text = ("[a](changes.md) [b](workloads/x-y.md#top) [c](../index.md) [d](#workloads) "
            "[e](https://e.com/x.md) [f](//e.com/x.md)")
    assert body(text) == (
        '<p><a href="changes.html">a</a> <a href="workloads/x-y.html#top">b</a> <a href="../index.html">c</a> '
        '<a href="#workloads">d</a> <a href="https://e.com/x.md">e</a> <a href="//e.com/x.md">f</a></p>\n')


def test_a_hostile_table_stays_one_inert_table_in_its_box():
    # What the writers' escape() makes of "a|b", "<b>" and "~" (reports/markdown.py), and what it would not.
    text = "| A | B |\n|---|---|\n| a\\|b &lt;b&gt; &#126; | <i>raw</i> |\n| [l](javascript:q) | \\\\|\n"
    assert body(text) == (
        '<div class="scroll"><table>\n<thead>\n<tr>\n  <th>A</th>\n  <th>B</th>\n</tr>\n</thead>\n<tbody>\n'
        "<tr>\n  <td>a|b &lt;b&gt; ~</td>\n  <td>&lt;i&gt;raw&lt;/i&gt;</td>\n</tr>\n"
        '<tr>\n  <td><a href="#harmful-link">l</a></td>\n  <td>\\</td>\n</tr>\n</tbody>\n</table></div>\n')


def test_headings_keep_the_ids_and_title_they_had():
    # Python-Markdown's toc ids: index.md links to #workloads; a repeated heading gets _1, an empty one _1.
    text = "# Report &lt;b&gt; — 2026-11-29\n\n## Workloads\n\n### `x` on [y](y.md)\n\n## Workloads\n\n##\n"
    assert "<title>Report &lt;b&gt; — 2026-11-29</title>" in to_html(text)
    assert body(text) == (
        '<h1 id="report-b-2026-11-29">Report &lt;b&gt; — 2026-11-29</h1>\n<h2 id="workloads">Workloads</h2>\n'
        '<h3 id="x-on-y"><code>x</code> on <a href="y.html">y</a></h3>\n<h2 id="workloads_1">Workloads</h2>\n'
        '<h2 id="_1"></h2>\n')


def test_a_page_rendered_once_is_taken_from_the_cache_by_its_text(monkeypatch, tmp_path):
    """Any report's page with the same markdown reuses the HTML (warehouse/store/cache.py); other text, or
    an entry another version of this code left, is rendered afresh."""
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(tmp_path / "cache"))
    text = "# Night\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    first = html.to_html_reusing("index.md", text, [])
    assert first == html.to_html(text)
    (entry,) = (tmp_path / "cache" / "html").iterdir()
    entry.write_text(first.replace("<td>1</td>", "<td>kept</td>"))  # what the cache hands back, not a render
    assert "<td>kept</td>" in html.to_html_reusing("workloads/other.md", text, [])
    assert "<td>3</td>" in html.to_html_reusing("index.md", text.replace("| 1 |", "| 3 |"), [])
    entry.write_text(first.replace(html.STAMP, "0" * 16).replace("<td>1</td>", "<td>stale</td>"))
    assert html.to_html_reusing("index.md", text, []) == first


@given(st.text(alphabet=st.characters(blacklist_characters="\\`*_[]!<&\n", blacklist_categories=("Cs",))))
def test_text_without_inline_syntax_is_the_text_mistune_would_parse(text):
    """The shortcut past mistune's inline parser (plain table cells) gives what the parser gives."""
    assert html._Inline()(text, {}) == mistune.InlineParser()(text, {})
