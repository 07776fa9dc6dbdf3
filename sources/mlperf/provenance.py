"""Which results repository and round a local checkout is, without guessing.

In order, the first that answers:

1. git metadata of the checkout: the GitHub remote (`.git/config`) names the repository,
   `HEAD` (through refs/ or packed-refs) the commit;
2. a folder on the path named like the repository, as a clone or an unpacked GitHub
   archive leaves it: `inference_results_v5.1`, `training_results_v5.0-main`;
3. a round hint folder on the path: `round=v5.1`, `round-v5.1`, `--round=v5.1`.

When none answers, or the name contradicts the files (an "inference" name over training
logs), the Origin's round is None and `provenance` says why, so the parser rejects the rows
with that reason instead of loading them under a wrong round.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from sources.mlperf.bundle import Origin

REPO_NAME = re.compile(r"^(?P<suite>inference|training)_results_(?P<round>v\d+(?:\.\d+)+)(?:[-_.].*)?$", re.I)
REMOTE = re.compile(r"github\.com[:/]+(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?$", re.I)
ROUND_HINT = re.compile(r"^(?:--)?round[=_-]?(?P<round>v?\d+(?:\.\d+)+)$", re.I)
SHA = re.compile(r"^[0-9a-f]{40}$")


def _git_dir(checkout: Path) -> Path | None:
    dot = checkout / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():  # worktree or submodule: "gitdir: <path>"
        text = dot.read_text(errors="replace").strip()
        if text.startswith("gitdir:"):
            target = (checkout / text.removeprefix("gitdir:").strip()).resolve()
            return target if target.is_dir() else None
    return None


def _remote(git: Path) -> str | None:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read(git / "config")
    except configparser.Error:
        return None
    sections = sorted(parser.sections(), key=lambda s: s != 'remote "origin"')
    for section in sections:
        url = parser.get(section, "url", fallback="") if section.startswith("remote ") else ""
        match = REMOTE.search(url.strip())
        if match:
            return f"{match['owner']}/{match['name']}"
    return None


def _commit(git: Path) -> str | None:
    head = (git / "HEAD").read_text(errors="replace").strip() if (git / "HEAD").is_file() else ""
    if SHA.match(head):
        return head
    ref = head.removeprefix("ref:").strip()
    if not ref:
        return None
    loose = git / ref
    if loose.is_file() and SHA.match(sha := loose.read_text(errors="replace").strip()):
        return sha
    packed = git / "packed-refs"
    for line in packed.read_text(errors="replace").splitlines() if packed.is_file() else []:
        parts = line.split()
        if len(parts) == 2 and parts[1] == ref and SHA.match(parts[0]):
            return parts[0]
    return None


def find(path: Path, suite: str) -> Origin:
    """The Origin of the files under `path`, whose layout says they are `suite` results."""
    chain = [path, *path.parents]
    for folder in chain:
        git = _git_dir(folder)
        if git is None:
            continue
        repo = _remote(git)
        named = REPO_NAME.match(repo.split("/")[1]) if repo else None
        if named:
            return _checked(Origin(suite, repo, named["round"].lower(), _commit(git), str(path)), named["suite"])
        break  # a git checkout that is not a results repository: fall through to the names
    for folder in chain:
        named = REPO_NAME.match(folder.name)
        if named:
            repo = f"mlcommons/{named['suite'].lower()}_results_{named['round'].lower()}"
            return _checked(Origin(suite, repo, named["round"].lower(), None, str(path)), named["suite"])
    for folder in chain:
        hint = ROUND_HINT.match(folder.name)
        if hint:
            return Origin(suite, None, "v" + hint["round"].lower().lstrip("v"), None, str(path))
    why = (
        f"could not tell which MLPerf round {path} holds: no git remote naming an MLCommons results "
        "repository, no folder named like inference_results_v5.1, no round=vX.Y folder on the path"
    )
    return Origin(suite, None, None, None, str(path), why)


def _checked(origin: Origin, named_suite: str) -> Origin:
    if named_suite.lower() == origin.suite:
        return origin
    why = f"{origin.repo} is named as {named_suite.lower()} results but {origin.location} holds {origin.suite} results"
    return Origin(origin.suite, None, None, None, origin.location, why)
