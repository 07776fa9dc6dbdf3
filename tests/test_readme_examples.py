"""Every `gpucalc` command the README shows runs as written on the bundled night and prints what
the README says it prints: the output block after "it prints:" word for word, and the figures of
the seed's table in the answer they were read from."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.flows.cli_helpers import gpucalc

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
PROGRAM = ".venv/bin/gpucalc"


def commands(block: str) -> list[str]:
    """The gpucalc commands of one shell block, each joined across its continued lines: a line
    ending in a backslash, or inside a quoted string that has not closed yet."""
    found, current = [], None
    for line in block.splitlines():
        if current is None:
            if not line.startswith(PROGRAM):
                continue  # a comment, a blank line or `make ...`
            current = line
        else:
            current += "\n" + line
        if not current.endswith("\\") and current.count('"') % 2 == 0:
            found.append(current.replace("\\\n", " "))
            current = None
    assert current is None, f"a README command never ends: {current}"
    return found


def shell_commands() -> list[str]:
    return [command for language, body in FENCE.findall(README) if language == "sh" for command in commands(body)]


@pytest.fixture(scope="module")
def printed(offline_data) -> dict:
    """What each README command answers on the bundled night (read-only, so asked once each)."""
    answers = {}
    for command in shell_commands():
        args = shlex.split(command)
        assert args[0] == PROGRAM
        answers[command] = gpucalc(*args[1:], "--data-dir", str(offline_data))
    return answers


def test_the_readme_shows_the_seed_commands_and_its_sql_examples():
    shown = shell_commands()
    assert sum(c.startswith(f"{PROGRAM} whatif") for c in shown) == 1
    assert sum(c.startswith(f"{PROGRAM} compare") for c in shown) == 1
    assert sum(c.startswith(f"{PROGRAM} sql") for c in shown) == 7


def test_every_readme_command_runs_as_written_on_the_bundled_night(printed):
    for command, result in printed.items():
        assert result.exit_code == 0, f"{command}\n{result.output}"
        assert result.stdout.strip(), command


def _after(marker: str) -> str:
    """The README from `marker` on."""
    assert marker in README, marker
    return README.split(marker, 1)[1]


def _answer(printed: dict, name: str) -> str:
    return next(result.stdout for command, result in printed.items() if command.startswith(f"{PROGRAM} {name}"))


def test_the_second_seeds_output_is_what_compare_prints(printed):
    assert _answer(printed, "compare") == FENCE.search(_after("On the bundled prices it prints:")).group(2)


def test_the_first_seeds_table_holds_the_figures_whatif_prints(printed):
    table = _after("On the bundled data:").split("\n\n", 2)[1]
    rows = [line.split("|")[2:5] for line in table.splitlines()[2:]]  # tokens/s, faster, cost
    assert len(rows) == 4
    output = _answer(printed, "whatif")
    for tokens, faster, cost in rows:
        assert f"{tokens.strip()} tokens/s" in output
        assert f"{faster.strip()} the speed" in output
        assert f"{cost.strip()} the cost" in output


def test_the_first_seeds_answer_says_each_fleet_in_words(printed):
    output = _answer(printed, "whatif")
    assert "baseline: 4x RTX PRO 6000 WS (1 RTX PRO 6000 Blackwell workstation) [ws-rtxpro6000-4, bf16]" in output
    assert "candidate 3: 8x B200 (1 HGX B200 server) [hgx-b200-8, bf16]" in output
    assert ("candidate 4: 4x B200 (4 of 8 GPUs of one HGX B200 server) + 2x RTX PRO 6000 SE (2 of 8 GPUs of one "
            "RTX PRO 6000 Blackwell server) [hgx-b200-8 + srv-rtxpro6000-8, bf16]") in output


def test_the_first_seeds_answer_says_where_each_verdict_flips(printed):
    # 4 B200s at 3.4x the per-GPU price, 4.47x as fast as the 4 workstation GPUs: 3.4 / 4.47 = 0.76x
    # the cost, cheaper up to 4.47x the price or down to 76% of the estimated speed (README: "24%")
    assert ("stays cheaper below 4.47x the baseline's per-GPU price, or above 76% of the speed estimated "
            "(the model 24% optimistic)") in _answer(printed, "whatif")
