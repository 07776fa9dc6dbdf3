"""Outside text cannot break a page: escaping, links and code spans, on GitHub and in the report's HTML."""

import polars as pl
import pytest

from reports.html import to_html
from reports.markdown import Md, code, escape, link, source_link, table
from warehouse.questions.plain_text import fmt_hours, fmt_usd

HOSTILE = [
    "a|b", "<script>alert(1)</script>", "[click](javascript:alert(1))", "![x](http://e.com/x.png)",
    "*bold* _it_ `code`", "back\\slash|", "line\nbreak\r", "<http://evil.com>", "&amp; &lt;", "~~strike~~", "x\\",
]


def test_hostile_strings_stay_one_inert_cell():
    text = table(pl.DataFrame({"a": HOSTILE, "b": ["ok"] * len(HOSTILE)}), {"a": ("A", None), "b": ("B", None)})
    html = to_html(text).split("<main>")[1].split("</main>")[0]  # the page's own sort script comes after
    assert html.count("<tr>") == len(HOSTILE) + 1 and html.count("<td>ok</td>") == len(HOSTILE)
    for tag in ("<script", "<a ", "<img", "<em>", "<strong>", "<code>", "<del>"):
        assert tag not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "[click](javascript:alert(1))" in html
    assert "a|b" in html and "back\\slash|" in html and "~~strike~~" not in text  # GitHub's strikethrough, inert


def test_escape_keeps_markdown_we_built():
    assert escape(Md("[x](y.md)")) == "[x](y.md)"
    assert escape(None) == "" and escape("plain text 1.5") == "plain text 1.5"


def test_escape_changes_exactly_the_characters_that_could_be_markup():
    """Each character alone, by hand: backslashed, an entity, a space for a control, else as written
    (escape skips its substitutions for text with none of these; this holds the two in step)."""
    expected = {ch: "\\" + ch for ch in "\\`*_[]|"} | {"&": "&amp;", "<": "&lt;", ">": "&gt;", "~": "&#126;"}
    expected |= {chr(code): " " for code in [*range(0x20), 0x7F]}
    for code_point in range(0x300):
        ch = chr(code_point)
        assert escape(ch) == expected.get(ch, ch), repr(ch)
    assert escape("x" * 50 + "|") == "x" * 50 + "\\|"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "ftp://e.com", "http//no", ""])
def test_only_web_addresses_become_links(url):
    assert link("x", url) == "x"


def test_a_link_cannot_be_broken_out_of():
    assert link("a]b", "https://e.com/p?q=1 )[x](javascript:y)<") == (
        "[a\\]b](https://e.com/p?q=1%20%29[x]%28javascript:y%29%3C)".replace("[x]", "%5Bx%5D"))
    html = to_html(link("a]b", "https://e.com/p?q=1 )[x](javascript:y)<"))
    assert html.count("<a ") == 1 and 'href="https://e.com/p?q=1%20%29%5Bx%5D%28javascript:y%29%3C"' in html


def test_source_references_link_to_their_files():
    assert source_link("mlcommons/inference_results_v4.1@198fc46:closed/AMD/x.txt") == (
        "[mlcommons/inference\\_results\\_v4.1@198fc46:closed/AMD/x.txt]"
        "(https://github.com/mlcommons/inference_results_v4.1/blob/198fc46/closed/AMD/x.txt)")
    assert source_link("owner/repo@abcdef1:dir/").endswith("(https://github.com/owner/repo/tree/abcdef1/dir/)")
    assert source_link("sources/data/CATALOG.md (estimates)") == "sources/data/CATALOG.md (estimates)"
    # several references, an address with a note after it: each address its own link, the note text
    assert source_link("https://a.example/x.pdf;https://b.example/y.csv (price: list, 2024)") == (
        "[https://a.example/x.pdf](https://a.example/x.pdf); [https://b.example/y.csv](https://b.example/y.csv) "
        "(price: list, 2024)")


def test_code_spans_fence_past_backticks():
    assert code("a`b") == "``a`b``" and code("`x") == "`` `x ``"
    assert "<p><code>&lt;b&gt;`x</code></p>" in to_html(code("<b>`x"))


def test_formats():
    assert fmt_hours(0.5) == "30 min" and fmt_hours(5) == "5.0 h" and fmt_hours(72) == "3.0 d"
    assert fmt_hours(0.004) == "14 s" and fmt_hours(1e-5) == "under a second"  # never "0 min"
    assert fmt_usd(1234.5) == "$1,234" and fmt_usd(2.5) == "$2.50"


def test_a_serving_fleet_counts_its_replicas_and_gpus_in_words():
    from warehouse.questions.plain_text import decision_text

    row = {"choice": "rent on-demand", "pick": "cheapest", "fleet_gpus": 22, "n_gpus": 1, "provider": "vast",
           "instance_type": "1x-RTX_5090", "usd_per_mtok": 0.15, "usd_per_hour": 10.56, "token_unit": "output tokens",
           "deployments": 5, "unit_gpus": 1, "fleet_utilization": 0.99, "platform_id": "srv-rtx5090-8",
           "layout": "tp1 pp1, batch 96", "pricing": "on_demand", "bottleneck": None, "confidence": "default",
           "error_p50": None, "error_p90": None}
    assert "fleet of 5 replicas of 1 GPU at 99% of its capacity" in decision_text(row, serving=True)[1]
    row.update(deployments=1, unit_gpus=8)
    assert "fleet of 1 replica of 8 GPUs at" in decision_text(row, serving=True)[1]
