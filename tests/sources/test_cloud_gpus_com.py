"""cloud-gpus.com cloud_gpu.json: one per-GPU on-demand row per provider and mapped cost key,
"-" is not offered, ambiguous keys are skipped, unparseable or unknown ones rejected."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sources import cloud_gpus_com
from sources.bundled.catalog import load_catalog
from sources.kit import registry
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import Payload, SourceError
from tests.sources.test_aliases import NOT_MODELLED

FIXTURE = Path(__file__).parents[1] / "fixtures" / "cloud_gpus_com" / "cloud_gpu.json"
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "prices" / "cloud-gpus-com_cloud_gpu.json"
DAY = date(2026, 6, 2)


def payload(body: bytes, name: str = "cloud_gpu.json") -> Payload:
    return Payload(source="cloud_gpus_com", name=name, body=body, url=f"/tmp/{name}")


def parsed_fixture():
    return cloud_gpus_com.parse(payload(FIXTURE.read_bytes()), DAY)


def prices(parsed) -> dict[tuple[str, str], float]:
    return {
        (r["provider"], r["gpu_name"]): r["usd_per_instance_hour"] for r in parsed.rows.iter_rows(named=True)
    }


def test_one_gpu_per_row_at_the_listed_per_gpu_price():
    parsed = parsed_fixture()
    assert dict(parsed.rows.schema) == PRICE_QUOTE
    assert prices(parsed) == {
        ("amazon-aws", "V100"): 3.06,
        ("amazon-aws", "A100-80GB"): 5.12,  # = p4de.24xlarge 40.97 / 8, rounded
        ("lambda-cloud", "A100-40GB"): 1.29,
        ("lambda-cloud", "H100"): 2.49,
        ("oracle-cloud", "H100"): 10.00,  # = BM.GPU.H100.8 80.00 / 8
    }
    h100 = parsed.rows.filter(parsed.rows["provider"] == "oracle-cloud").row(0, named=True)
    assert (h100["instance_type"], h100["gpus_per_instance"], h100["pricing"]) == ("1x H100", 1.0, "on_demand")
    assert (h100["region"], h100["zone"], h100["currency"], h100["source_row"]) == ("global", None, "USD", 3)
    assert (h100["source"], h100["source_ref"], h100["observed_at"]) == ("cloud_gpus_com", "cloud_gpu.json", DAY)


def test_bad_values_and_unknown_keys_are_rejected_and_ambiguous_keys_skipped():
    parsed = parsed_fixture()
    rejects = {(r.source_row, r.rule): r for r in parsed.rejects}
    assert set(rejects) == {(3, "cloud_gpus_com_unparseable_price"), (3, "cloud_gpus_com_unknown_key")}
    assert "costa10=''" in rejects[(3, "cloud_gpus_com_unparseable_price")].detail
    assert "costb300" in rejects[(3, "cloud_gpus_com_unknown_key")].detail
    # costrtx6000 (Quadro RTX 6000 or RTX 6000 Ada?) is skipped by design, not rejected
    assert "costrtx6000" in cloud_gpus_com.SKIPPED
    assert not any("rtx" in (g or "").lower() for g in parsed.rows["gpu_name"].to_list())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "not JSON"),
        (b'{"providers": []}', "no 'data' list"),
        (b'{"data": []}', "empty provider list"),
        (b'{"data": [{"url": "x", "costh100": "$1"}]}', "'name' missing"),
        (b'{"data": [{"name": "X", "region": "US"}]}', "no 'cost<gpu>' price keys"),
    ],
)
def test_malformed_payloads_are_source_errors(body, message):
    with pytest.raises(SourceError, match=message):
        cloud_gpus_com.parse(payload(body), DAY)


def test_a_bad_provider_entry_is_a_reject():
    body = json.dumps({"data": [{"name": "A", "costt4": "$0.35"}, "oops", {"name": "B", "costt4": "0.35/hr"}]})
    parsed = cloud_gpus_com.parse(payload(body.encode()), DAY)
    assert prices(parsed) == {("a", "T4"): 0.35}
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [
        (2, "cloud_gpus_com_bad_provider"),
        (3, "cloud_gpus_com_unparseable_price"),
    ]


def test_each_mapped_spelling_resolves_like_its_key():
    # gpu_alias already knows the raw keys (test_aliases); the spelling the parser emits must
    # land on the same GPU, and keys classified as unmodelled must stay unresolved.
    table = load_catalog()["gpu_alias"]
    aliases = {a.strip().lower(): g for a, g in zip(table["alias"], table["gpu_id"], strict=True)}
    for key, spelling in cloud_gpus_com.GPU_NAMES.items():
        assert aliases.get(key) == aliases.get(spelling.lower()), (key, spelling)
        assert (key in NOT_MODELLED) == (spelling.lower() not in aliases), (key, spelling)
    assert set(cloud_gpus_com.SKIPPED) <= NOT_MODELLED  # skipping loses no estimable GPU
    assert not set(cloud_gpus_com.SKIPPED) & set(cloud_gpus_com.GPU_NAMES)


def test_file_only_and_registered():
    assert registry.spec_for("cloud_gpus_com") is cloud_gpus_com.SPEC and not cloud_gpus_com.SPEC.live
    with pytest.raises(SourceError, match="cloud_gpus_com is file-only: use gpucalc ingest cloud_gpus_com"):
        cloud_gpus_com.fetch(None, DAY)


def test_the_real_shared_file_parses_and_every_key_is_classified():
    if not SHARED.is_file():
        pytest.skip(f"{SHARED} not present")
    parsed = cloud_gpus_com.parse(payload(SHARED.read_bytes(), SHARED.name), DAY)
    assert parsed.rows.height > 250
    # the one blank value in the 2025-09 file (Leafcloud costa10 "") and nothing else
    assert [(r.rule, r.source_row) for r in parsed.rejects] == [("cloud_gpus_com_unparseable_price", 26)]
    keys = {k for p in json.loads(SHARED.read_text())["data"] for k in p if k.startswith("cost")}
    assert keys <= set(cloud_gpus_com.GPU_NAMES) | set(cloud_gpus_com.SKIPPED)
    assert prices(parsed)[("amazon-aws", "A100-80GB")] == 5.12


def test_memory_only_where_the_key_names_it():
    parsed = parsed_fixture()
    memory = {(r["provider"], r["gpu_name"]): r["gpu_memory_gb"] for r in parsed.rows.iter_rows(named=True)}
    assert memory[("amazon-aws", "A100-80GB")] == 80.0 and memory[("lambda-cloud", "A100-40GB")] == 40.0
    assert memory[("lambda-cloud", "H100")] is None


def test_hostile_values_are_one_named_reject():
    body = json.dumps({"data": [{"name": "A", "costt4": "$0.35", "costh100": "$1" + "0" * 400, "costl4": ["$1"]},
                                {"name": ["B"], "costt4": "$0.40"}]})
    parsed = cloud_gpus_com.parse(payload(body.encode()), DAY)
    assert prices(parsed) == {("a", "T4"): 0.35}
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [
        (1, "implausible_value"), (1, "cloud_gpus_com_unparseable_price"), (2, "cloud_gpus_com_missing_name"),
    ]
