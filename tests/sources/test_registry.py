"""Source names, aliases and `--sources` validation; parsing kept payloads; the raw store."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from sources.kit import raw_store, registry
from sources.kit.spec import Payload

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DAY = date(2026, 3, 1)


def skypilot_payload(name: str = "aws_vms.csv", body: bytes | None = None, provider: str = "aws") -> Payload:
    path = FIXTURES / "skypilot" / "aws_vms.csv"
    return Payload("skypilot", name, path.read_bytes() if body is None else body, str(path), provider)


def test_names_resolve_with_their_aliases_and_unknown_ones_list_the_known():
    assert registry.resolve("runs") == "user_runs"
    assert registry.resolve(" Quotes ") == "quotes_file"
    assert registry.spec_for("runs").name == "user_runs"
    with pytest.raises(registry.UnknownSource, match="unknown source 'nope'; known: skypilot, azure_retail"):
        registry.resolve("nope")


def test_sources_pick_defaults_to_every_live_source_and_refuses_file_only_ones():
    assert registry.pick_live(None) == registry.live_sources()
    assert "quotes_file" not in registry.live_sources() and "skypilot" in registry.live_sources()
    assert registry.pick_live(["vast", "skypilot", "vast"]) == ["vast", "skypilot"]
    with pytest.raises(registry.UnknownSource, match="'runs' is file-only: load it with `gpucalc ingest runs"):
        registry.pick_live(["skypilot", "runs"])


def test_an_ingested_catalog_is_kept_under_the_name_the_live_fetch_uses():
    assert registry.ingest_name("skypilot", "vms.csv", "AWS") == "aws_vms.csv"
    assert registry.ingest_name("skypilot", "vms.csv", None) == "vms.csv"
    assert registry.ingest_name("quotes_file", "quotes.yaml", None) == "quotes.yaml"


def test_a_bad_payload_fails_alone_and_rejects_name_their_payload():
    good = skypilot_payload()
    cut = skypilot_payload("gcp_vms.csv", b"InstanceType,Price\nx,1", "gcp")
    day = registry.parse_payloads("skypilot", [good, cut], DAY)
    assert day.parsed is not None and day.parsed.rows.height == 9
    ((payload, problem),) = day.problems
    assert payload == "skypilot/2026-03-01/gcp_vms.csv" and problem.startswith("gcp_vms.csv: ")
    assert {r.detail.split(":")[0] for r in day.parsed.rejects} == {"aws_vms.csv"}
    # every row and reject carries the payload it came from; the window is the payloads that parsed
    assert day.parsed.rows["payload"].unique().to_list() == ["skypilot/2026-03-01/aws_vms.csv"]
    assert {r.payload for r in day.parsed.rejects} == {"skypilot/2026-03-01/aws_vms.csv"}
    assert day.window == ["skypilot/2026-03-01/aws_vms.csv"]
    assert registry.parse_payloads("skypilot", [cut], DAY).parsed is None
    nothing = registry.parse_payloads("skypilot", [], DAY)
    assert (nothing.parsed, nothing.problems, nothing.window) == (None, [("", "no payloads kept for this day")], [])


def test_a_payload_over_its_sources_size_limit_is_refused_before_parsing(monkeypatch):
    spec = registry.spec_for("skypilot")
    monkeypatch.setitem(registry.all_specs(), "skypilot", replace(spec, max_bytes=10))
    parsed, problem = registry.parse_one("skypilot", skypilot_payload(), DAY)
    assert parsed is None and "over the 10-byte limit for skypilot payloads" in problem


def test_names_that_would_leave_the_raw_folder_are_refused(tmp_path):
    # probe 10: --provider ../../../../outside/x wrote outside the data directory
    for provider in ("../../../../outside/x", "/etc", "a/b", "..", ""):
        with pytest.raises(raw_store.UnsafeName):
            registry.ingest_name("skypilot", "vms.csv", provider or " ")
    with pytest.raises(raw_store.UnsafeName):
        raw_store.save(skypilot_payload("../escape.csv"), tmp_path, DAY)
    assert not (tmp_path.parent / "escape.csv").exists()


def test_an_unreadable_sidecar_is_ignored_and_the_payload_described_from_its_bytes(tmp_path):
    # probe 13: a truncated .meta.json crashed every replay of the day
    kept = raw_store.save(skypilot_payload(), tmp_path, DAY)
    (kept.path.parent / "aws_vms.csv.meta.json").write_text('{"url": "https://x", "fetched_at": 5, "sha')
    (back,) = raw_store.kept_day(tmp_path, "skypilot", DAY)
    assert back.sha256 == kept.sha256 and back.provider is None


def test_a_parser_crash_is_a_failed_payload_not_a_failed_run(monkeypatch):
    spec = registry.spec_for("skypilot")

    def boom(payload, day):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setitem(registry.all_specs(), "skypilot", replace(spec, parse=boom))
    parsed, problem = registry.parse_one("skypilot", skypilot_payload(), DAY)
    assert parsed is None and problem == "parser failed unexpectedly (ZeroDivisionError: division by zero)"


def test_raw_store_keeps_bytes_and_a_sidecar_and_reads_them_back(tmp_path):
    payload = skypilot_payload()
    kept = raw_store.save(payload, tmp_path, DAY, run_id="run-1")
    assert kept.path == tmp_path / "skypilot" / "2026-03-01" / "aws_vms.csv"
    assert kept.path.read_bytes() == payload.body
    meta = json.loads((kept.path.parent / "aws_vms.csv.meta.json").read_text())
    assert meta["sha256"] == kept.sha256 and meta["bytes"] == len(payload.body) and meta["run_id"] == "run-1"
    assert not list(kept.path.parent.glob("*.partial"))

    (back,) = raw_store.kept_day(tmp_path, "skypilot", DAY)
    assert back == kept
    assert [raw_store.as_payload(k) for k in raw_store.kept_day(tmp_path, "skypilot", DAY)] == [payload]
    assert raw_store.sources_on(tmp_path, DAY) == ["skypilot"]
    assert raw_store.sources_on(tmp_path, date(2026, 3, 2)) == []


def test_a_payload_dropped_in_by_hand_is_described_from_its_bytes(tmp_path):
    folder = tmp_path / "user_runs" / "2026-03-01"
    folder.mkdir(parents=True)
    (folder / "runs.csv").write_bytes(b"workload_id\n")
    (kept,) = raw_store.kept_day(tmp_path, "user_runs", DAY)
    assert (kept.url, kept.provider, kept.bytes, kept.run_id) == (str(folder / "runs.csv"), None, 12, None)
    assert len(kept.sha256) == 64
