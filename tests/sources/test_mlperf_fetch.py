"""MLPerf live fetch against a fake GitHub that serves the fixture checkouts as repositories:
the tree API (whole, truncated, per sub-tree) and raw files. Never the network."""

from __future__ import annotations

import hashlib
import json
from datetime import date
from pathlib import Path
from urllib.parse import quote

import pytest
import requests

from sources import mlperf
from sources.kit.http import make_session
from sources.kit.spec import SourceError
from sources.mlperf import live
from tests.sources.fakes import RoutedAdapter

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mlperf"
SHA = "0123456789abcdef0123456789abcdef01234567"
API = "https://api.github.com/repos"
RAW = "https://raw.githubusercontent.com"
INFERENCE = ("inference", "mlcommons/inference_results_v5.1")
TRAINING = ("training", "mlcommons/training_results_v5.1")
DAY = date(2026, 6, 2)


def tree_sha(repo: str, folder: str) -> str:
    return hashlib.sha1(f"{repo}:{folder}".encode()).hexdigest()


def listing(files: list[str], folder: str, recursive: bool) -> list[dict]:
    """Tree entries of `folder` (relative paths), as GitHub's git/trees returns them."""
    prefix = f"{folder}/" if folder else ""
    inside = [f[len(prefix):] for f in files if f.startswith(prefix)]
    dirs = {"/".join(f.split("/")[:i]) for f in inside for i in range(1, f.count("/") + 1)}
    if not recursive:
        inside, dirs = [f for f in inside if "/" not in f], {d for d in dirs if "/" not in d}
    repo_dirs = [{"path": d, "type": "tree", "mode": "040000"} for d in dirs]
    blobs = [{"path": f, "type": "blob", "mode": "100644", "size": 1} for f in inside]
    return sorted(repo_dirs + blobs, key=lambda e: e["path"])


def github(repo: str, truncated: bool = False, truncated_owners: tuple = ()) -> dict[str, list]:
    """Routes serving fixtures/mlperf/<repo name> as `repo` at commit SHA."""
    root = FIXTURES / repo.split("/")[1]
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}

    def tree(folder: str, recursive: bool, cut: bool = False) -> list:
        entries = listing(files, folder, recursive)
        for entry in entries:
            full = f"{folder}/{entry['path']}" if folder else entry["path"]
            entry["sha"] = tree_sha(repo, full) if entry["type"] == "tree" else "f" * 40
        body = {"sha": tree_sha(repo, folder), "tree": entries[:3] if cut else entries, "truncated": cut}
        return [(200, json.dumps(body).encode())]

    routes = {
        f"{API}/{repo}/commits/HEAD": [(200, SHA.encode())],
        f"{API}/{repo}/git/trees/{SHA}?recursive=1": tree("", True, cut=truncated),
        f"{API}/{repo}/git/trees/{SHA}": tree("", False),
    }
    for folder in folders:
        owner = folder.split("/")[-1] in truncated_owners
        routes[f"{API}/{repo}/git/trees/{tree_sha(repo, folder)}"] = tree(folder, False)
        routes[f"{API}/{repo}/git/trees/{tree_sha(repo, folder)}?recursive=1"] = tree(folder, True, cut=owner)
    for path in files:
        routes[f"{RAW}/{repo}/{SHA}/{quote(path)}"] = [(200, (root / path).read_bytes())]
    return routes


def session_for(routes: dict) -> tuple[requests.Session, RoutedAdapter]:
    adapter = RoutedAdapter(routes)
    session = make_session(backoff_factor=0)
    session.mount("https://", adapter)
    return session, adapter


@pytest.fixture(autouse=True)
def keyless(monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)


def api_calls(adapter: RoutedAdapter) -> int:
    return sum(r.url.startswith(API) for r in adapter.requests)


def without_commit(payloads) -> dict[str, dict]:
    return {p.name: json.loads(p.body) | {"commit": None} for p in payloads}


@pytest.mark.parametrize("suite, repo", [INFERENCE, TRAINING])
def test_the_live_fetch_builds_the_bundles_a_checkout_gives(suite, repo):
    session, adapter = session_for(github(repo))
    fetched = live.fetch_round(session, suite, repo)
    local = mlperf.from_path(FIXTURES / repo.split("/")[1])
    assert without_commit(fetched) == without_commit(local)
    assert {json.loads(p.body)["commit"] for p in fetched} == {SHA}
    assert api_calls(adapter) == 2  # HEAD commit + one whole listing
    # only what the parser reads is downloaded: no compliance copy, no resnet50/whisper summary
    raw = [r.url for r in adapter.requests if r.url.startswith(RAW)]
    assert raw and not any(("compliance" in u or "resnet50" in u or "whisper" in u or "flux1" in u) for u in raw)


def test_a_truncated_listing_is_walked_one_submitter_at_a_time():
    session, adapter = session_for(github(INFERENCE[1], truncated=True))
    fetched = live.fetch_round(session, *INFERENCE)
    whole = live.fetch_round(session_for(github(INFERENCE[1]))[0], *INFERENCE)
    assert without_commit(fetched) == without_commit(whole)
    assert sorted(json.loads(p.body)["submitter"] for p in fetched) == [
        "ASUSTeK", "Azure", "Cisco", "ExampleCo", "MangoBoost",  # the end of the alphabet too
    ]
    assert api_calls(adapter) == 2 + 1 + 5  # + closed/ (named by the cut listing) + one per submitter


def test_a_listing_still_truncated_fails_its_round_and_only_its_round(monkeypatch):
    routes = github(INFERENCE[1], truncated=True, truncated_owners=("MangoBoost",)) | github(TRAINING[1])
    monkeypatch.setattr(live, "REPOS", (INFERENCE, TRAINING))
    payloads = live.fetch(session_for(routes)[0], DAY)
    failed = [p for p in payloads if p.name.endswith("__FAILED.json")]
    assert [p.name for p in failed] == ["inference_results_v5.1__FAILED.json"]
    assert {json.loads(p.body)["suite"] for p in payloads if p not in failed} == {"training"}
    with pytest.raises(SourceError, match=r"closed/MangoBoost/ is truncated .* the round is not loaded"):
        mlperf.parse(failed[0], DAY)
    monkeypatch.setattr(live, "REPOS", (INFERENCE,))
    with pytest.raises(SourceError, match="no MLPerf results fetched: .*truncated"):
        live.fetch(session_for(routes)[0], DAY)


def test_a_file_that_cannot_be_downloaded_costs_only_its_results():
    routes = github(INFERENCE[1])
    cisco = "closed/Cisco/results/C885A_M8_H200_SXM_141GBx16_TRT/llama3_1-405b/Offline/performance/run_1/"
    routes[f"{RAW}/{INFERENCE[1]}/{SHA}/{cisco}mlperf_log_summary.txt"] = [requests.Timeout("read timed out")]
    azure = "closed/Azure/results/ND_GB200_v6/llama3.1-405b/Server/performance/run_1/mlperf_log_summary.txt"
    body = routes[f"{RAW}/{INFERENCE[1]}/{SHA}/{azure}"][0][1]
    routes[f"{RAW}/{INFERENCE[1]}/{SHA}/{azure}"] = [(200, body[:40], {"Content-Length": str(len(body))})]
    payloads = {json.loads(p.body)["submitter"]: p for p in live.fetch_round(session_for(routes)[0], *INFERENCE)}
    for submitter, reason in (("Cisco", "timed out"), ("Azure", "truncated response")):
        result = mlperf.parse(payloads[submitter], DAY)
        assert result.rows.is_empty()
        [reject] = result.rejects
        assert reject.rule == "mlperf_file_unavailable" and reason in reject.detail
    assert mlperf.parse(payloads["ASUSTeK"], DAY).rows.height == 2


def test_the_github_token_is_sent_when_set(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
    session, adapter = session_for(github(TRAINING[1]))
    live.fetch_round(session, *TRAINING)
    assert adapter.requests and all(r.headers["Authorization"] == "Bearer ghp_test" for r in adapter.requests)


def test_a_refused_api_call_says_how_to_raise_the_limit():
    routes = github(INFERENCE[1])
    routes[f"{API}/{INFERENCE[1]}/commits/HEAD"] = [(403, b'{"message": "API rate limit exceeded"}')]
    with pytest.raises(SourceError, match="HTTP 403.*set GITHUB_TOKEN"):
        live.fetch_round(session_for(routes)[0], *INFERENCE)
