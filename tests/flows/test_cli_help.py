"""Every command's --help renders (Rich reads square brackets in help text as markup: one
stray "[/SPLIT]" crashed `gpucalc whatif --help`), and whatif refuses bad numbers before it
copies any warehouse."""

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


def _command_paths(command, path=()):
    yield list(path)
    for name, sub in getattr(command, "commands", {}).items():
        yield from _command_paths(sub, (*path, name))


ALL_COMMANDS = list(_command_paths(get_command(app)))


def test_version_names_gpucalc_and_its_engines_as_installed():
    from importlib.metadata import version

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["gpucalc", version("gpucalc"), "duckdb", version("duckdb"), "prefect",
                                     version("prefect"), "polars", version("polars"), "great-expectations",
                                     version("great-expectations")]


def test_the_app_has_its_commands():
    assert ["whatif"] in ALL_COMMANDS and ["run"] in ALL_COMMANDS and len(ALL_COMMANDS) > 5


@pytest.mark.parametrize("path", ALL_COMMANDS, ids=lambda p: " ".join(p) or "gpucalc")
def test_help_renders(path):
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_whatif_help_shows_the_side_syntax():
    result = runner.invoke(app, ["whatif", "--help"], terminal_width=200)
    text = " ".join(result.output.split())
    assert "PLATFORM:N/LAYOUT@PRICE" in text and "shared" in text and "hgx-b200-8:4+l40s-8:2" in text


@pytest.mark.parametrize(
    "args, says",
    [
        (["--measured", "-5"], "--measured (tokens/s) must be above zero, got -5"),
        (["--measured-days", "0"], "--measured-days must be above zero, got 0"),
        (["--units-per-token", "0"], "--units-per-token must be above zero, got 0"),
        (["-c", "hgx-b200-8:0"], "GPU count in 'hgx-b200-8:0' must be above zero, got 0"),
        (["-c", "hgx-b200-8:4@-1/gpu-h"], "price '-1/gpu-h' must be above zero, got -1"),
        (["-c", "hgx-b200-8:4/4+1"], "split 4+1 in 'hgx-b200-8:4' uses 5 GPUs, not 4"),
        (["--pricing", "cheapest"], "pricing 'cheapest': use one of on_demand, spot, reserved_1y, reserved_3y, owned"),
        (["--utilization", "1.5"], "--utilization must be a fraction from 0.01 to 1, got 1.5"),
        (["--years", "-1"], "--years must be above zero, got -1"),
    ],
)
def test_whatif_refuses_zero_and_negative_inputs_naming_them(tmp_path, args, says):
    base = ["whatif", "-w", "dflash-qwen36-27b", "-b", "ws-rtxpro6000-4:4/3+1", "-c", "hgx-b200-8:4"]
    result = runner.invoke(app, [*base, *args, "--data-dir", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert says in result.output
    assert not (tmp_path / "none").exists()  # refused before anything was read or written


def test_the_installed_command_keeps_its_output_and_exit_code(tmp_path):
    """The console script exits without the interpreter's teardown (flows.cli.main): what the
    command printed still arrives, and its exit code is the command's."""
    import subprocess
    import sys
    from pathlib import Path

    gpucalc = str(Path(sys.executable).parent / "gpucalc")
    shown = subprocess.run([gpucalc, "sql", "select 42", "--data-dir", str(tmp_path)], capture_output=True, text=True)
    assert shown.returncode == 2 and "no warehouse at" in shown.stderr and shown.stdout == ""
    usage = subprocess.run([gpucalc, "no-such-command"], capture_output=True, text=True)
    assert usage.returncode == 2 and "No such command" in usage.stderr
    listed = subprocess.run([gpucalc, "--help"], capture_output=True, text=True)
    assert listed.returncode == 0 and "whatif" in listed.stdout
