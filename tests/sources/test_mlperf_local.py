"""MLPerf from a local checkout: any part of a results repository in its real layout gives the
bundles the whole checkout gives, and the repository, round and commit are found, not guessed."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from sources import mlperf
from sources.kit.spec import SourceError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mlperf"
INFERENCE = FIXTURES / "inference_results_v5.1"
DAY = date(2026, 6, 2)
SHA = "0123456789abcdef0123456789abcdef01234567"
CISCO = "closed/Cisco/results/C885A_M8_H200_SXM_141GBx16_TRT"


def bodies(payloads) -> dict[str, dict]:
    return {p.name: json.loads(p.body) for p in payloads}


def copy_part(part: str, to: Path) -> Path:
    """Copy closed/<submitter> of the inference fixture under `to`, keeping the layout."""
    submitter = "/".join(part.split("/")[:2])
    shutil.copytree(INFERENCE / submitter, to / submitter)
    return to


def test_payload_names_are_plain_and_name_the_round_submitter_and_system():
    payloads = mlperf.from_path(INFERENCE)
    assert len(payloads) == 5 and all(re.fullmatch(r"[A-Za-z0-9._-]+", p.name) for p in payloads)
    assert "inference_results_v5.1__Cisco__C885A_M8_H200_SXM_141GBx16_TRT.json" in [p.name for p in payloads]
    assert all(Path(p.url).is_dir() for p in payloads)


@pytest.mark.parametrize(
    "part",
    ["closed", "closed/Cisco", CISCO, f"{CISCO}/llama3_1-405b", f"{CISCO}/llama3_1-405b/Offline/performance"],
)
def test_any_part_of_a_checkout_gives_the_same_bundle(part):
    whole = bodies(mlperf.from_path(INFERENCE))
    subset = bodies(mlperf.from_path(INFERENCE / part))
    name = "inference_results_v5.1__Cisco__C885A_M8_H200_SXM_141GBx16_TRT.json"
    assert subset[name] == whole[name]
    assert len(subset) == (5 if part == "closed" else 1)


def test_one_benchmark_folder_of_a_system_is_a_smaller_bundle():
    folder = INFERENCE / "closed/ExampleCo/results/EX8_H100_SXM_80GBx8_TRT/llama2-70b-99"
    [bundle] = bodies(mlperf.from_path(folder)).values()
    assert list(bundle["folders"]) == ["llama2-70b-99"]
    assert any(p.endswith("/systems/EX8_H100_SXM_80GBx8_TRT.json") for p in bundle["files"])
    rows = mlperf.parse(mlperf.from_path(folder)[0], DAY).rows
    assert sorted(rows["value"].to_list()) == [20800.0, 24000.0]


def test_an_unnamed_checkout_says_its_round_is_unknown_and_loads_nothing(tmp_path):
    root = copy_part(CISCO, tmp_path / "downloads")
    [payload] = mlperf.from_path(root)
    bundle = json.loads(payload.body)
    assert (bundle["repo"], bundle["round"], bundle["commit"]) == (None, None, None)
    assert "could not tell which MLPerf round" in bundle["provenance"]
    assert payload.name == "local_inference_unknown__Cisco__C885A_M8_H200_SXM_141GBx16_TRT.json"
    result = mlperf.parse(payload, DAY)
    assert result.rows.is_empty()
    [reject] = result.rejects
    assert reject.rule == "mlperf_unknown_round" and "round unknown: could not tell" in reject.detail


def test_a_round_hint_on_the_path_names_the_round(tmp_path):
    root = copy_part(CISCO, tmp_path / "round=v5.1")
    [payload] = mlperf.from_path(root / "closed")
    bundle = json.loads(payload.body)
    assert (bundle["repo"], bundle["round"], bundle["provenance"]) == (None, "v5.1", None)
    [row] = mlperf.parse(payload, DAY).rows.iter_rows(named=True)
    assert (row["round"], row["value"]) == ("v5.1", 1086.01)
    assert row["source_ref"].startswith(f"MLPerf inference v5.1:{CISCO}/llama3_1-405b/Offline/")


@pytest.mark.parametrize("packed", [False, True])
def test_git_metadata_names_the_repository_and_commit(tmp_path, packed):
    root = copy_part(CISCO, tmp_path / "checkout")
    git = root / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:mlcommons/inference_results_v5.1.git\n'
    )
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    if packed:
        (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{SHA} refs/heads/main\n")
    else:
        (git / "refs" / "heads" / "main").write_text(SHA + "\n")
    [payload] = mlperf.from_path(root / CISCO)
    bundle = json.loads(payload.body)
    assert (bundle["repo"], bundle["round"], bundle["commit"]) == ("mlcommons/inference_results_v5.1", "v5.1", SHA)
    # the name the live fetch gives it: an ingested checkout replaces that day's fetched payload
    assert payload.name == "inference_results_v5.1__Cisco__C885A_M8_H200_SXM_141GBx16_TRT.json"
    [row] = mlperf.parse(payload, DAY).rows.iter_rows(named=True)
    assert row["source_ref"] == (
        f"https://github.com/mlcommons/inference_results_v5.1/blob/{SHA}/{CISCO}/llama3_1-405b/"
        "Offline/performance/run_1/mlperf_log_summary.txt"
    )


def test_a_name_that_contradicts_the_files_is_not_trusted(tmp_path):
    root = copy_part(CISCO, tmp_path / "training_results_v5.1")
    [payload] = mlperf.from_path(root)
    bundle = json.loads(payload.body)
    assert bundle["round"] is None and "named as training results" in bundle["provenance"]
    assert [r.rule for r in mlperf.parse(payload, DAY).rejects] == ["mlperf_unknown_round"]


def test_the_open_division_is_left_out_unless_asked_for(tmp_path):
    root = tmp_path / "inference_results_v5.1"
    copy_part(CISCO, root)
    shutil.copytree(root / "closed" / "Cisco", root / "open" / "Cisco")
    assert [json.loads(p.body)["division"] for p in mlperf.from_path(root)] == ["closed"]
    [payload] = mlperf.from_path(root / "open")
    result = mlperf.parse(payload, DAY)
    assert result.rows.is_empty() and [r.rule for r in result.rejects] == ["mlperf_open_division"]


def test_a_kept_bundle_file_loads_as_it_is(tmp_path):
    [payload] = mlperf.from_path(INFERENCE / CISCO)
    kept = tmp_path / payload.name
    kept.write_bytes(payload.body)
    [again] = mlperf.from_path(kept)
    assert (again.name, again.body) == (payload.name, payload.body)
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(SourceError, match="neither a results checkout folder nor an MLPerf bundle"):
        mlperf.from_path(other)


def test_paths_without_results_are_refused(tmp_path):
    with pytest.raises(SourceError, match="no such directory"):
        mlperf.from_path(tmp_path / "missing")
    (tmp_path / "empty" / "closed").mkdir(parents=True)
    with pytest.raises(SourceError, match="found no MLPerf inference summaries or training result logs"):
        mlperf.from_path(tmp_path / "empty")


def test_a_training_system_folder_gives_the_same_bundle_as_the_checkout():
    root = FIXTURES / "training_results_v5.1"
    whole = bodies(mlperf.from_path(root))
    [(name, bundle)] = bodies(mlperf.from_path(root / "NVIDIA" / "results" / "theia_ngpu8_ngc25.09_nemo")).items()
    assert bundle == whole[name] and bundle["division"] is None and bundle["round"] == "v5.1"
    assert sorted(p.rsplit("/", 1)[1] for p in bundle["files"]) == [
        "result_0.txt", "result_1.txt", "result_2.txt", "theia_ngpu8_ngc25.09_nemo.json",
    ]


def test_a_folder_holding_both_suites_is_refused():
    with pytest.raises(SourceError, match="both inference and training results: point at one repository"):
        mlperf.from_path(FIXTURES)
