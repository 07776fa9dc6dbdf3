"""Progress lines on stderr (flows/progress.py), and the stop Ctrl-C makes at the next stage
(flows/interrupt.py): a terminal sees stage lines, a pipe or `--quiet` sees none."""

from __future__ import annotations

import io
import re

import pytest
import typer

from flows import interrupt, progress
from flows.cli import app

ELAPSED = re.compile(r"\[\s*\d+\.\ds\] ")  # "[  0.0s] ": the seconds since the command began


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_each_stage_is_a_line_on_a_terminal_and_a_count_rewrites_its_own():
    out = Terminal()
    with progress.shown("report: opening the warehouse", stream=out):
        for n in (1, 2, 3):
            progress.stage(f"report: drawing chart {n}/3")
        progress.stage("report: writing pages")
    progress.stage("heard by no one: the block has ended")
    assert ELAPSED.sub("", out.getvalue()) == (
        "report: opening the warehouse...\n"
        "report: drawing chart 1/3..."
        "\r\x1b[Kreport: drawing chart 2/3..."
        "\r\x1b[Kreport: drawing chart 3/3...\n"
        "report: writing pages...\n"
    )


def test_quiet_or_no_terminal_prints_nothing():
    for stream, quiet in ((Terminal(), True), (io.StringIO(), False)):
        with progress.shown("loading prices", quiet=quiet, stream=stream):
            progress.stage("rebuilding estimates")
        assert stream.getvalue() == ""


def test_every_command_that_takes_seconds_takes_quiet():
    commands = typer.main.get_command(app).commands
    quiet = {name for name, command in commands.items() if any(p.name == "quiet" for p in command.params)}
    assert quiet == {"run", "ingest", "replay", "report", "export", "whatif", "compare", "serve", "predict",
                     "backtest"}


def test_after_ctrl_c_the_next_stage_stops_the_command_and_prints_nothing(monkeypatch):
    out = Terminal()
    with progress.shown("loading prices", stream=out):
        monkeypatch.setitem(interrupt._state, "interrupted", True)  # as the SIGINT handler leaves it
        with pytest.raises(KeyboardInterrupt):
            progress.stage("rebuilding estimates")
    assert ELAPSED.sub("", out.getvalue()) == "loading prices...\n"
