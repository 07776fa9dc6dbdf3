"""The MLPerf payload: one JSON bundle per (submitter, system) of one results repository.

A bundle holds, exactly as read, every file the parser needs for one system: its
`systems/<system>.json`, the performance summaries (inference) or result logs and
scaling.json (training) of its LLM benchmark folders, and the measurements JSONs that
declare precision. It also lists every benchmark folder of the system, read or not, so the
parser can account for each one, and the files it could not read, with why.

    {"format": FORMAT, "suite": "inference" | "training",
     "repo": "mlcommons/inference_results_v5.1" | null, "round": "v5.1" | null,
     "commit": "<40 hex>" | null, "provenance": null | "why repo or round are unknown",
     "division": "closed" | null, "submitter": ..., "system": ...,
     "folders": {benchmark folder: repo path}, "files": {repo path: text},
     "unfetched": {repo path: why}}

The live fetch and a local checkout (`from_path`) build the same bundle for the same files.
A round that could not be fetched at all is kept as {"format", "suite", "repo", "failure"},
so the day's raw payloads say why it is missing and parsing it reports the failure.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from sources.kit.spec import Payload, Reject, SourceError

NAME = "mlperf"
FORMAT = "gpucalc.mlperf.bundle/2"
FORMAT_V1 = "gpucalc.mlperf.bundle/1"  # earlier days: one (submitter, system, benchmark) per bundle
SUITES = ("inference", "training")
ROUND = re.compile(r"(?:inference|training)_results_(v\d+(?:\.\d+)+)$")


@dataclass(frozen=True)
class Origin:
    """Where a round's files come from, and what is known about it."""

    suite: str
    repo: str | None  # owner/name on GitHub
    round: str | None  # "v5.1"
    commit: str | None
    location: str  # tree URL or local directory, for messages and Payload.url
    provenance: str | None = None  # why repo or round are unknown, when they are


def round_of(repo: str | None) -> str | None:
    match = ROUND.search(repo or "")
    return match[1] if match else None


def safe_name(text: str) -> str:
    """A file-name-safe spelling; a hash keeps two names that differ only in unsafe characters apart."""
    safe = re.sub(r"\.{2,}", ".", re.sub(r"[^A-Za-z0-9._-]+", "_", text)).strip("._-")[:60] or "x"
    return safe if safe == text else f"{safe}-{hashlib.sha1(text.encode()).hexdigest()[:6]}"


def payload_name(origin: Origin, submitter: str, system: str) -> str:
    """`<repo>__<submitter>__<system>.json`: a plain file name, the same for the live fetch and a checkout."""
    label = origin.repo.split("/")[-1] if origin.repo else f"local_{origin.suite}_{origin.round or 'unknown'}"
    return f"{safe_name(label)}__{safe_name(submitter)}__{safe_name(system)}.json"


def make(origin: Origin, unit, files: dict[str, str], unfetched: dict[str, str], url: str) -> Payload:
    """The payload of one planned unit (sources.mlperf.layout.Unit) with the texts read for it."""
    bundle = {
        "format": FORMAT,
        "suite": origin.suite,
        "repo": origin.repo,
        "round": origin.round,
        "commit": origin.commit,
        "provenance": origin.provenance,
        "division": unit.division,
        "submitter": unit.submitter,
        "system": unit.system,
        "folders": dict(sorted(unit.folders.items())),
        "files": {p: files[p] for p in unit.wanted if p in files},
        "unfetched": {p: unfetched[p] for p in unit.wanted if p in unfetched} | unit.missing,
    }
    body = json.dumps(bundle, indent=1, ensure_ascii=False).encode()
    return Payload(NAME, payload_name(origin, unit.submitter, unit.system), body, url)


def failure(suite: str, repo: str, message: str) -> Payload:
    body = json.dumps({"format": FORMAT, "suite": suite, "repo": repo, "failure": message}, indent=1).encode()
    return Payload(NAME, f"{safe_name(repo.split('/')[-1])}__FAILED.json", body, f"https://github.com/{repo}")


def read(payload: Payload) -> dict:
    """The validated bundle of a payload; SourceError when it is not one."""
    try:
        bundle = json.loads(payload.body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SourceError(NAME, f"{payload.url}: bundle is not JSON ({exc})") from exc
    if isinstance(bundle, dict) and bundle.get("format") == FORMAT_V1:
        bundle = _from_v1(bundle, payload.url)
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise SourceError(NAME, f"{payload.url}: not a {FORMAT} bundle")
    if bundle.get("suite") not in SUITES:
        raise SourceError(NAME, f"{payload.url}: bundle suite {bundle.get('suite')!r} is not one of {SUITES}")
    if "failure" in bundle:
        raise SourceError(NAME, f"{bundle.get('repo')}: round not fetched: {bundle['failure']}")
    for key in ("submitter", "system"):
        if not isinstance(bundle.get(key), str) or not bundle[key].strip():
            raise SourceError(NAME, f"{payload.url}: bundle lacks '{key}'")
    for key in ("folders", "files", "unfetched"):
        value = bundle.setdefault(key, {})
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise SourceError(NAME, f"{payload.url}: bundle '{key}' is not a map of text")
    for key in ("repo", "round", "commit", "provenance", "division"):
        if not isinstance(bundle.setdefault(key, None), str | None):
            raise SourceError(NAME, f"{payload.url}: bundle '{key}' is not text")
    if not bundle["folders"]:
        raise SourceError(NAME, f"{payload.url}: bundle lists no benchmark folders")
    return bundle


def _from_v1(old: dict, url: str) -> dict:
    """Payloads kept before bundles covered a whole system still replay: same files, one folder."""
    files = old.get("files")
    bench = old.get("benchmark")
    if not isinstance(files, dict) or not isinstance(bench, str) or not isinstance(old.get("repo"), str):
        raise SourceError(NAME, f"{url}: malformed {FORMAT_V1} bundle")
    folder = next((p.split(f"/{bench}/")[0] + f"/{bench}" for p in files if f"/{bench}/" in str(p)), bench)
    return old | {
        "format": FORMAT,
        "round": round_of(old["repo"]),
        "division": "closed" if folder.startswith("closed/") else None,
        "folders": {bench: folder},
        "unfetched": {},
    }


def file_ref(bundle: dict, path: str, kind: str = "blob") -> str:
    """Where a row's number can be checked: the file on GitHub at the commit, when known."""
    if bundle["repo"] and bundle["commit"]:
        return f"https://github.com/{bundle['repo']}/{kind}/{bundle['commit']}/{path}"
    if bundle["repo"]:
        return f"{bundle['repo']}:{path} (local checkout, commit unknown)"
    return f"MLPerf {bundle['suite']} {bundle['round'] or '(round unknown)'}:{path} (local checkout)"


def reject(bundle: dict, number: int, rule: str, path: str, detail: str) -> Reject:
    """A rejected result of this bundle, naming the repository path it came from."""
    where = {"path": path, "submitter": bundle["submitter"], "system": bundle["system"], "round": bundle["round"]}
    return Reject(NAME, number, rule, f"{path}: {detail}", where)
