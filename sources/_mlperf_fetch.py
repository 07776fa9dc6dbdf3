"""Fetch MLPerf result bundles from the MLCommons results repositories (used by sources.mlperf).

Per repository: the HEAD commit (1 API call), its recursive tree (1 API call), then the raw
files of each (submitter, system, benchmark) that gpucalc can use, from
raw.githubusercontent.com at that commit. The GitHub API allows 60 keyless calls an hour,
so GITHUB_TOKEN is sent when set, and raw files are capped per repository.

A bundle is one JSON payload holding every file one parse needs, exactly as received:
{"format", "suite", "repo", "commit", "submitter", "system", "benchmark",
 "files": {repo path: text}}.
"""

from __future__ import annotations

import json
import logging
import os
import re
from urllib.parse import quote

import requests

from sources import _mlperf_inference as inference
from sources import _mlperf_training as training
from sources.base import Payload, SourceError
from sources.http import get_bytes

FORMAT = "gpucalc.mlperf.bundle/1"
API = "https://api.github.com/repos"
RAW = "https://raw.githubusercontent.com"
log = logging.getLogger(__name__)


def _headers(accept: str | None = None) -> dict:
    headers = {"Accept": accept} if accept else {}
    token = os.environ.get("GITHUB_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _tree(session: requests.Session, source: str, repo: str) -> tuple[str, list[str]]:
    sha = (
        get_bytes(
            session, source, f"{API}/{repo}/commits/HEAD", headers=_headers("application/vnd.github.sha")
        )
        .decode()
        .strip()
    )
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise SourceError(source, f"{repo}: unexpected commit id {sha[:60]!r}")
    body = get_bytes(session, source, f"{API}/{repo}/git/trees/{sha}?recursive=1", headers=_headers())
    try:
        tree = json.loads(body)
        paths = [e["path"] for e in tree["tree"] if e.get("type") == "blob"]
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(source, f"{repo}: unreadable git tree ({exc})") from exc
    if tree.get("truncated"):
        log.warning("%s: git tree listing is truncated; results beyond it are not fetched", repo)
    return sha, paths


def _groups(suite: str, paths: list[str], benchmarks: set[str]) -> dict[tuple, list[str]]:
    """(submitter, system, benchmark) -> the files to fetch, system JSON first."""
    pattern = inference.PATH if suite == "inference" else training.PATH
    groups: dict[tuple, list[str]] = {}
    for path in paths:
        m = pattern.match(path)
        if not m or m["benchmark"] not in benchmarks:
            continue
        if suite == "inference" and (
            not path.startswith("closed/") or m["scenario"] not in ("Offline", "Server", "Interactive")
        ):
            continue  # open-division models are modified; other scenarios are not LLM serving
        groups.setdefault((m["submitter"], m["system"], m["benchmark"]), []).append(path)
    available = set(paths)
    for (sub, system, bench), files in groups.items():
        prefix = "closed/" if suite == "inference" or files[0].startswith("closed/") else ""
        extra = [f"{prefix}{sub}/systems/{system}.json"]
        if suite == "inference":
            extra += [
                p
                for p in available
                if p.startswith(f"closed/{sub}/measurements/{system}/{bench}/") and p.endswith(".json")
            ]
        else:
            extra.append(f"{prefix}{sub}/results/{system}/{bench}/scaling.json")
        files[:0] = sorted(p for p in extra if p in available)
    return groups


def fetch_repo(
    session: requests.Session, source: str, suite: str, repo: str, benchmarks: set[str], max_files: int
) -> list[Payload]:
    sha, paths = _tree(session, source, repo)
    payloads, used = [], 0
    for (sub, system, bench), files in sorted(_groups(suite, paths, benchmarks).items()):
        if used + len(files) > max_files:
            log.warning("%s: file cap %d reached; remaining results not fetched", repo, max_files)
            break
        used += len(files)
        try:
            texts = {
                p: get_bytes(session, source, f"{RAW}/{repo}/{sha}/{quote(p)}", headers=_headers()).decode(
                    "utf-8", errors="replace"
                )
                for p in files
            }
        except SourceError as exc:  # one missing file costs one bundle, not the round
            log.warning("skipping %s/%s/%s: %s", sub, system, bench, exc)
            continue
        bundle = {
            "format": FORMAT,
            "suite": suite,
            "repo": repo,
            "commit": sha,
            "submitter": sub,
            "system": system,
            "benchmark": bench,
            "files": texts,
        }
        directory = (
            os.path.dirname(files[-1]) if suite == "training" else f"closed/{sub}/results/{system}/{bench}"
        )
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{repo.split('/')[-1]}__{sub}__{system}__{bench}.json")
        payloads.append(
            Payload(
                source=source,
                name=name,
                body=json.dumps(bundle, indent=1).encode(),
                url=f"https://github.com/{repo}/tree/{sha}/{directory}",
            )
        )
    return payloads
