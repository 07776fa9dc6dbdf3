"""The history page lists every dated report newest first; `latest` leads to the newest."""

import json
import os

from reports import history


def dated(reports, day, status, headline):
    folder = reports / day
    folder.mkdir(parents=True)
    (folder / "index.md").write_text(f"# {day}\n")
    (folder / "summary.json").write_text(json.dumps({"status": status, "headline": headline}))


def test_history_newest_first_and_latest_symlink(tmp_path):
    dated(tmp_path, "2026-11-28", "success", "1 price move")
    dated(tmp_path, "2026-11-29", "partial", "vast failed | <b>")
    (tmp_path / "2026-11-30").mkdir()  # no report in it: not listed
    history.write_history(tmp_path)
    lines = [line for line in (tmp_path / "index.md").read_text().splitlines() if line.startswith("| [")]
    assert lines == ["| [2026-11-29](2026-11-29/index.md) | partial | vast failed \\| &lt;b&gt; |",
                     "| [2026-11-28](2026-11-28/index.md) | success | 1 price move |"]
    assert os.readlink(tmp_path / "latest") == "2026-11-29"
    assert 'href="2026-11-29/index.html"' in (tmp_path / "index.html").read_text()


def test_latest_is_a_redirecting_folder_where_symlinks_are_impossible(tmp_path, monkeypatch):
    dated(tmp_path, "2026-11-28", "success", "")

    def no_symlinks(*args, **kwargs):
        raise OSError("symlinks are not supported here")

    monkeypatch.setattr(os, "symlink", no_symlinks)
    history.write_history(tmp_path)
    latest = tmp_path / "latest"
    assert latest.is_dir() and not latest.is_symlink()
    assert "(../2026-11-28/index.md)" in (latest / "index.md").read_text()
    assert 'http-equiv="refresh" content="0; url=../2026-11-28/index.html"' in (latest / "index.html").read_text()
    monkeypatch.undo()
    history.write_history(tmp_path)  # symlinks work again: the folder gives way to the link
    assert (tmp_path / "latest").is_symlink()
