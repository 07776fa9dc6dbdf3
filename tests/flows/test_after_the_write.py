"""A full disk is said truthfully: before the warehouse write landed, the warehouse is as it was;
after it (the nightly's report), the warehouse has the run's data and only the report is missing."""

from __future__ import annotations

import errno

import pytest

from flows import console

REPORT_FILE = "/data/reports/.2026-11-29.new-7/charts/a.png"


def full_disk() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device", REPORT_FILE)


def test_a_full_disk_before_the_write_landed_leaves_the_warehouse_as_it_was():
    assert console.disk_full(full_disk()) == (
        f"the disk is full writing {REPORT_FILE} (no space left on device); the warehouse is as it was. "
        "Free some space and run the command again"
    )


def test_a_full_disk_after_the_write_landed_says_the_warehouse_has_the_run():
    with pytest.raises(console.AfterTheWrite) as caught:
        with console.after_the_write("writing its report"):
            raise full_disk()
    assert console.disk_full(caught.value) == (
        f"the disk is full writing {REPORT_FILE} (no space left on device) after the warehouse had taken the "
        "run's data; only what came after it (the report) is missing. Free some space and run `gpucalc report`"
    )


def test_any_failure_after_the_write_says_the_warehouse_has_the_run():
    with pytest.raises(console.AfterTheWrite) as caught:
        with console.after_the_write("writing its report"):
            raise ValueError("a chart could not be drawn\nmore detail")
    assert str(caught.value) == ("the warehouse has the run's data, but writing its report failed: "
                                 "a chart could not be drawn")
    assert console.disk_full(caught.value) is None


def test_duckdbs_full_disk_inside_another_error_is_found():
    try:
        try:
            raise RuntimeError('IO Error: Could not write file "x.parquet": No space left on device')
        except RuntimeError as inner:
            raise ValueError("the write failed") from inner
    except ValueError as outer:
        sentence = console.disk_full(outer)
    assert sentence.startswith("the disk is full (no space left on device); the warehouse is as it was")


def test_a_report_that_fails_mid_write_leaves_no_half_written_folder(tmp_path, monkeypatch):
    from pathlib import Path

    from reports.render import swap_in

    folder = tmp_path / "reports" / "2026-11-29"
    swap_in(folder, {"index.md": b"last good report\n"})
    real_write = Path.write_bytes

    def fills_the_disk(path, content):
        if path.name == "b.png":
            raise full_disk()
        return real_write(path, content)

    monkeypatch.setattr(Path, "write_bytes", fills_the_disk)
    with pytest.raises(OSError):
        swap_in(folder, {"index.md": b"tonight\n", "charts/b.png": b"png"})
    assert sorted(p.name for p in folder.parent.iterdir()) == ["2026-11-29"]  # no .2026-11-29.new-<pid> beside it
    assert (folder / "index.md").read_bytes() == b"last good report\n"
