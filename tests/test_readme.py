"""The README is the front door: short, and its map of the code names folders that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_readme_is_a_front_door_not_a_manual():
    assert len(README.splitlines()) <= 300


def test_every_folder_and_file_the_map_names_exists():
    block = README.split("## The map of the code", 1)[1].split("```", 2)[1]
    folders = re.findall(r"^([a-z_]+/)", block, re.M)
    assert folders == ["flows/", "sources/", "warehouse/", "reports/", "tests/", "docs/"]
    for folder in folders:
        assert (ROOT / folder).is_dir(), folder
    # the modules and subfolders it names in brackets, each under the folder of its paragraph
    for folder, text in re.findall(r"^([a-z_]+/)(.*?)(?=^[a-z_]+/|\Z)", block, re.M | re.S):
        for name in re.findall(r"\b([a-z_]+(?:\.py|/))", text):
            if name.endswith("/") or not name.startswith(("cli", "whatif", "bench")):
                assert (ROOT / folder / name).exists(), f"{folder}{name}"


def test_every_document_the_readme_links_exists():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
