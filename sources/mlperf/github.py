"""List a results repository on GitHub without missing a submitter.

GitHub returns at most 100,000 entries (7 MB) of a recursive tree and then says
`truncated: true`; the inference results trees are beyond that. The documented way out is
to fetch sub-trees one at a time (docs.github.com, REST "Get a tree"): when the whole tree
does not fit, list the top level, the submitters under it, then each submitter's tree
recursively. A listing that is still truncated fails the round: it would silently drop the
submitters late in the alphabet.

Calls per round: HEAD commit + whole tree, and when that is truncated 1-2 more + one per
submitter (about 30 for inference v5.1). Keyless clients get 60 API calls an hour, so
GITHUB_TOKEN is sent when set; raw file downloads (raw.githubusercontent.com) are not API calls.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import requests

from sources.kit.environment import env
from sources.kit.http import get_bytes
from sources.kit.spec import SourceError
from sources.mlperf.bundle import NAME

API = "https://api.github.com/repos"


def headers(accept: str = "application/vnd.github+json") -> dict:
    found = {"Accept": accept}
    token = env("GITHUB_TOKEN")
    if token:
        found["Authorization"] = f"Bearer {token}"
    return found


def _api(session: requests.Session, repo: str, path: str, accept: str = "application/vnd.github+json") -> bytes:
    try:
        return get_bytes(session, NAME, f"{API}/{repo}/{path}", headers=headers(accept))
    except SourceError as exc:
        if re.search(r"HTTP (403|429)", exc.message):
            hint = "" if env("GITHUB_TOKEN") else "; keyless clients get 60 calls an hour: set GITHUB_TOKEN"
            raise SourceError(NAME, f"{repo}: GitHub API refused the listing ({exc.message}){hint}") from exc
        raise


@dataclass(frozen=True)
class Tree:
    entries: list[dict]  # {"path", "type": "blob" | "tree", "sha"}
    truncated: bool

    def blobs(self, prefix: str = "") -> list[str]:
        return [prefix + e["path"] for e in self.entries if e["type"] == "blob"]

    def subtrees(self) -> dict[str, str]:
        return {e["path"]: e["sha"] for e in self.entries if e["type"] == "tree" and not e["path"].startswith(".")}


def head_commit(session: requests.Session, repo: str) -> str:
    sha = _api(session, repo, "commits/HEAD", "application/vnd.github.sha").decode("utf-8", "replace").strip()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise SourceError(NAME, f"{repo}: unexpected commit id {sha[:60]!r}")
    return sha


def tree(session: requests.Session, repo: str, sha: str, recursive: bool = False) -> Tree:
    body = _api(session, repo, f"git/trees/{sha}" + ("?recursive=1" if recursive else ""))
    try:
        listing = json.loads(body)
        entries = [
            {"path": str(e["path"]), "type": str(e["type"]), "sha": str(e.get("sha", ""))}
            for e in listing["tree"]
        ]
        return Tree(entries, bool(listing.get("truncated")))
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(NAME, f"{repo}: unreadable git tree {sha[:12]} ({exc})") from exc


def list_paths(session: requests.Session, repo: str, commit: str, suite: str) -> list[str]:
    """Every file path of the repository's results at `commit` (inference: closed division only)."""
    whole = tree(session, repo, commit, recursive=True)
    if not whole.truncated:
        paths = whole.blobs()
        return [p for p in paths if p.startswith("closed/")] if suite == "inference" else paths
    # The cut listing usually already names closed/ (it sorts early): one call saved per round.
    top = {e["path"]: e["sha"] for e in whole.entries if e["type"] == "tree" and "/" not in e["path"]}
    if suite != "inference" or "closed" not in top:
        top = tree(session, repo, commit).subtrees()
    if suite == "inference":
        if "closed" not in top:
            raise SourceError(NAME, f"{repo}@{commit[:12]}: no closed/ folder at the top of the tree")
        prefix, owners = "closed/", tree(session, repo, top["closed"]).subtrees()
    else:
        prefix, owners = "", top  # training repositories keep submitters at the top level
    paths = []
    for owner, sha in sorted(owners.items()):
        listing = tree(session, repo, sha, recursive=True)
        if listing.truncated:
            raise SourceError(
                NAME,
                f"{repo}@{commit[:12]}: the listing of {prefix}{owner}/ is truncated by GitHub "
                "(over 100,000 entries or 7 MB): its results cannot all be seen, so the round is not loaded",
            )
        paths += listing.blobs(f"{prefix}{owner}/")
    return paths
