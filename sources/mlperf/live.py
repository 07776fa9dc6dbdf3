"""Fetch MLPerf result bundles from the MLCommons results repositories on GitHub.

Per round (repository): the HEAD commit and the file listing (sources.mlperf.github), the
plan of which files each system needs (sources.mlperf.layout), then those files from
raw.githubusercontent.com at that commit, a few at a time, into one bundle per system.

A round that cannot be listed fails alone: the other rounds still load, and a small
"failure" bundle is kept in its place so the day's payloads say why and the load reports it.
Only when no round can be fetched does the source fail. A file that cannot be downloaded
costs only the results that need it (the bundle lists it under "unfetched").
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from urllib.parse import quote

import requests

from sources.kit.http import failures_in_short, get_bytes
from sources.kit.spec import Payload, SourceError
from sources.mlperf import bundle, github, layout
from sources.mlperf.bundle import NAME, Origin

# Cheapest listings first, newest first: keyless, the ~60 API calls of a night run out on the
# last round (inference v5.0) rather than on the two-call training rounds.
REPOS = (
    ("training", "mlcommons/training_results_v5.1"),
    ("training", "mlcommons/training_results_v5.0"),
    ("inference", "mlcommons/inference_results_v5.1"),
    ("inference", "mlcommons/inference_results_v5.0"),
)
RAW = "https://raw.githubusercontent.com"
WORKERS = 8  # parallel raw downloads: raw.githubusercontent.com is not API-rate-limited
log = logging.getLogger(__name__)


def fetch(session: requests.Session, observed_at: date | None = None) -> list[Payload]:
    """Bundles of every round; a round that fails is kept as a failure bundle (see module doc)."""
    payloads, failures = [], []
    for suite, repo in REPOS:
        try:
            payloads += fetch_round(session, suite, repo)
        except SourceError as exc:  # one unreachable round must not cost the others
            log.warning("%s", exc)
            failures.append((suite, repo, exc.message))
    if not payloads:
        raise SourceError(NAME, "no MLPerf results fetched: "
                          + failures_in_short([(repo, message) for _, repo, message in failures]))
    return payloads + [bundle.failure(suite, repo, message) for suite, repo, message in failures]


def _download(session: requests.Session, repo: str, commit: str, path: str) -> tuple[str, str | None, str | None]:
    url = f"{RAW}/{repo}/{commit}/{quote(path)}"
    try:
        return path, get_bytes(session, NAME, url, headers=github.headers("*/*")).decode("utf-8", "replace"), None
    except SourceError as exc:
        return path, None, exc.message


def fetch_round(session: requests.Session, suite: str, repo: str) -> list[Payload]:
    commit = github.head_commit(session, repo)
    units = layout.plan(suite, github.list_paths(session, repo, commit, suite))
    if not units:
        raise SourceError(NAME, f"{repo}@{commit[:12]}: no <submitter>/results/<system>/<benchmark>/ folders")
    wanted = [p for unit in units for p in unit.wanted]
    texts, unfetched = {}, {}
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for path, text, problem in pool.map(lambda p: _download(session, repo, commit, p), wanted):
            if text is None:
                log.warning("%s: %s", repo, problem)
                unfetched[path] = problem
            else:
                texts[path] = text
    origin = Origin(suite, repo, bundle.round_of(repo), commit, f"https://github.com/{repo}/tree/{commit}")
    return [
        bundle.make(origin, unit, texts, unfetched, f"{origin.location}/{unit.prefix}results/{unit.system}")
        for unit in units
    ]
