"""Which files of a results repository the parser needs, grouped into one unit per system.

Both the live fetch (paths from GitHub's tree listing) and a local checkout (paths found on
disk) call `plan` with repository-relative paths, so both read the same files into the same
bundles. Real layouts (mlcommons/inference_results_v5.1, training_results_v5.1):

    closed/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt
    closed/<submitter>/measurements/<system>/<benchmark>/<scenario>/<name>.json
    [closed/]<submitter>/results/<system>/<benchmark>/result_<n>.txt  (+ scaling.json)
    [closed/]<submitter>/systems/<system>.json

Only LLM folders have files read; every folder is listed so none disappears unaccounted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from sources.mlperf.benchmarks import classify

DIVISIONS = ("closed", "open", "network")
_OWNER = r"^(?P<prefix>(?:(?P<division>closed|open|network)/)?(?P<submitter>[^/]+)/)"
RESULT = re.compile(_OWNER + r"results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/(?P<rest>.+)$")
MEASUREMENT = re.compile(_OWNER + r"measurements/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/[^/]+/[^/]+\.json$")
SUMMARY = re.compile(r"^(?P<scenario>[^/]+)/performance/run_1/mlperf_log_summary\.txt$")
RUN_LOG = re.compile(r"^result_(?P<run>\d+)\.txt$")


@dataclass
class Unit:
    """One (submitter, system): its benchmark folders and the files to read for them."""

    division: str | None
    submitter: str
    system: str
    prefix: str  # "closed/NVIDIA/" or "NVIDIA/"
    folders: dict[str, str] = field(default_factory=dict)  # benchmark folder -> repo path
    wanted: list[str] = field(default_factory=list)  # files to read, in order
    missing: dict[str, str] = field(default_factory=dict)  # needed but not in the tree

    @property
    def system_json(self) -> str:
        return f"{self.prefix}systems/{self.system}.json"


def needed_in_folder(suite: str, rest: str) -> bool:
    """A file under results/<system>/<benchmark>/ that the parser reads."""
    if suite == "inference":
        return bool(SUMMARY.match(rest))
    return bool(RUN_LOG.match(rest)) or rest == "scaling.json"


def suites_in(paths: Iterable[str]) -> set[str]:
    """Which kinds of results ("inference", "training") the files of a tree are."""
    found = set()
    for path in paths:
        match = RESULT.match(path)
        if match and SUMMARY.match(match["rest"]):
            found.add("inference")
        elif match and RUN_LOG.match(match["rest"]):
            found.add("training")
    return found


def plan(suite: str, paths: Iterable[str]) -> list[Unit]:
    """One unit per system under any results/ folder, sorted by submitter and system."""
    listed = set(paths)
    units: dict[tuple[str, str], Unit] = {}
    measurements: dict[tuple[str, str, str], list[str]] = {}
    llm: dict[str, bool] = {}  # folder spelling -> is an LLM benchmark (classify once per spelling)
    for path in sorted(listed):
        match = RESULT.match(path)
        if match:
            key = (match["prefix"], match["system"])
            if key not in units:
                units[key] = Unit(match["division"], match["submitter"], match["system"], match["prefix"])
            bench = match["benchmark"]
            units[key].folders.setdefault(bench, f"{match['prefix']}results/{match['system']}/{bench}")
            if bench not in llm:
                llm[bench] = classify(suite, bench).kind == "llm"
            if llm[bench] and needed_in_folder(suite, match["rest"]):
                units[key].wanted.append(path)
        elif suite == "inference" and (match := MEASUREMENT.match(path)):
            measurements.setdefault((match["prefix"], match["system"], match["benchmark"]), []).append(path)
    for (prefix, system), unit in units.items():
        llm_folders = [b for b in unit.folders if llm[b]]
        if not llm_folders:
            continue  # nothing to read: the parser only accounts for the folders
        for bench in llm_folders:
            unit.wanted += measurements.get((prefix, system, bench), [])
        if unit.system_json in listed:
            unit.wanted.insert(0, unit.system_json)
        else:
            unit.missing[unit.system_json] = "not in the repository tree"
    return [units[key] for key in sorted(units)]
