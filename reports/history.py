"""reports/index.md (+ .html): every dated report, newest first; and reports/latest -> the newest.

Built from the dated folders on disk (what people can open), each with the summary.json
its report wrote. `latest` is a relative symlink; where the file system cannot make one
(some Windows and network shares), it is a small folder whose index.md links and whose
index.html redirects to the newest report.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import polars as pl

from reports.html import to_html
from reports.markdown import Md, page_link, table

DATED = re.compile(r"^\d{4}-\d{2}-\d{2}$")
LATEST = "latest"


def dated_reports(reports_dir: Path) -> list[str]:
    return sorted(
        (p.name for p in reports_dir.iterdir() if p.is_dir() and not p.is_symlink() and DATED.match(p.name)
         and (p / "index.md").exists()),
        reverse=True,
    )


def page(reports_dir: Path) -> str:
    rows = []
    for name in dated_reports(reports_dir):
        summary = _summary(reports_dir / name)
        rows.append({"night": page_link(name, f"{name}/index.md"), "status": summary.get("status") or "",
                     "headline": summary.get("headline") or ""})
    out = ["# gpucalc reports\n", "Every night's report, newest first. "
           f"{page_link('The latest', f'{LATEST}/index.md')} always points at the newest.\n"]
    frame = pl.DataFrame(rows, schema={"night": pl.String, "status": pl.String, "headline": pl.String})
    out.append(table(frame, {"night": ("night", Md), "status": ("status", None), "headline": ("headline", None)}))
    return "\n".join(out)


def write_history(reports_dir: Path) -> None:
    text = page(reports_dir)
    _write_if_changed(reports_dir / "index.md", text)
    _write_if_changed(reports_dir / "index.html", to_html(text))
    names = dated_reports(reports_dir)
    if names:
        point_latest(reports_dir, names[0])


def point_latest(reports_dir: Path, name: str) -> None:
    """Make reports/latest lead to reports/<name>: a symlink, else a redirecting folder."""
    link = reports_dir / LATEST
    temporary = reports_dir / f".{LATEST}.{os.getpid()}"
    try:
        if temporary.is_symlink():
            temporary.unlink()
        os.symlink(name, temporary, target_is_directory=True)
        if link.is_dir() and not link.is_symlink():  # a fallback folder from an earlier run
            shutil.rmtree(link)
        os.replace(temporary, link)  # swaps the old symlink in one step
    except OSError:
        if temporary.is_symlink():
            temporary.unlink()
        _latest_folder(link, name)


def _latest_folder(link: Path, name: str) -> None:
    if link.is_symlink():
        link.unlink()
    link.mkdir(exist_ok=True)
    text = f"# The latest gpucalc report\n\n{page_link(name, f'../{name}/index.md')}\n"
    (link / "index.md").write_text(text)
    html = to_html(text).replace(
        "<meta charset=\"utf-8\">", f"<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" content=\"0; "
        f"url=../{name}/index.html\">"
    )
    (link / "index.html").write_text(html)


def _summary(folder: Path) -> dict:
    try:
        return json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError):  # a report from before summaries, or a damaged one
        return {}


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
