"""Every accelerator spelling in ../shared/data/prices/ resolves, or is deliberately unmodelled.

Each spelling found in those real files either resolves through sources/gpu_identity/ (an
alias in sources/data/gpu_alias.csv or the name read by model, form factor and memory), needs
the memory or instance type its row carries (a bare "A100" is 40 or 80 GB), or is listed below
as a GPU gpucalc deliberately does not model. A quote for an unmodelled GPU is rejected with a
reason naming it; that is the honest answer, since an estimate needs the part's peaks and
bandwidths from sources/data/gpu.csv. Adding a GPU to the catalog means moving its spellings
out of this list.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sources.bundled.catalog import load_catalog, load_table
from sources.gpu_identity import GpuCatalog, resolve_name
from sources.gpu_identity.names import parse_name

PRICES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "prices"

# Columns that name the accelerator, per file format.
NAME_COLUMNS = ("AcceleratorName", "GPU Type")  # SkyPilot vms.csv; FSDL cloud/serverless CSVs

NOT_MODELLED = {
    # Pascal datacenter parts (2016): retired from the big clouds; no dense Tensor peaks.
    "P100", "P100 (16 GB)", "costp100", "P4", "P4 (8 GB)", "costp4",
    # Quadro/RTX workstation cards older than RTX A6000. Lambda's and cloud-gpus.com's plain
    # "RTX6000" is the Turing Quadro RTX 6000 (24 GB), not the modelled RTX 6000 Ada.
    "M4000", "P4000", "costp4000", "costp5000", "costp6000",
    "Quadro RTX 6000 (24 GB)", "RTX6000", "costrtx6000",
    "RTX4000 (8 GB)", "costrtx4000", "RTX5000 (16 GB)", "costrtx5000",
    # Ampere workstation and VDI parts whose Tensor peaks we could not re-read (CATALOG.md 1.4).
    "A5000", "A5000 (24 GB)", "costa5000", "RTXA2000", "A16",
    # Consumer GeForce below the RTX 3090/4090. The raw key "cost3090" reads as no model; the
    # cloud_gpus_com parser spells it "RTX 3090", which resolves by name.
    "3080Ti (12 GB)", "RTX3060", "RTX3070", "RTX3080", "RTX4060", "RTX4070",
    "cost1080", "cost2080", "cost3080", "cost3090",
    # AMD before MI300X ("costml100" is cloud-gpus.com's key for the MI100).
    "Radeon MI25", "costmi250x", "costml100",
    # A 20 GB A100 is a MIG slice (FSDL serverless), not a whole accelerator.
    "A100 (20 GB)",
    # TPU v2/v3 pod slices from the 2022 GCP catalog; only TPU v5e and later are modelled.
    "tpu-v2-8", "tpu-v2-32", "tpu-v2-128", "tpu-v2-256", "tpu-v2-512",
    "tpu-v3-8", "tpu-v3-32", "tpu-v3-64", "tpu-v3-128", "tpu-v3-256", "tpu-v3-512", "tpu-v3-1024",
    "tpu-v3-2048",
}
# Spellings that name a modelled GPU family but not one card: the row's memory or instance
# type decides (SkyPilot and GCP "A100" rows carry 40960 or 81920 MiB; Vast "A100 SXM4" carries gpu_ram).
NEEDS_ROW_FACTS = {"A100", "A100 SXM4", "Nvidia A100"}


def spellings() -> dict[str, set[str]]:
    """Every accelerator spelling in the shared price files -> the files it appears in."""
    found: dict[str, set[str]] = {}

    def add(name, file: Path) -> None:
        if isinstance(name, str) and name.strip():
            found.setdefault(name.strip(), set()).add(file.name)

    for file in sorted(PRICES.glob("*.csv")):
        with file.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                for column in NAME_COLUMNS:
                    add(row.get(column), file)
    for file in sorted(PRICES.glob("cloud-gpus-com_*.json")):
        for provider in json.loads(file.read_text())["data"]:
            for key in provider:  # wide format: one "cost<gpu>" key per accelerator
                if key.startswith("cost"):
                    add(key, file)
    for file in sorted(PRICES.glob("vast_offers_*.json")):
        for offer in json.loads(file.read_text()):
            add(offer.get("gpu_name"), file)
    for file in sorted(PRICES.glob("aws_ec2instances-info_*.json")):
        add(json.loads(file.read_text()).get("GPU_model"), file)
    return found


@pytest.fixture(scope="module")
def found() -> dict[str, set[str]]:
    if not PRICES.is_dir():
        pytest.skip(f"{PRICES} not present (the shared reference data lives beside the repository)")
    return spellings()


@pytest.fixture(scope="module")
def catalog() -> GpuCatalog:
    return GpuCatalog.from_frames(load_table("gpu"), load_table("gpu_alias"), load_table("gpu_instance"))


@pytest.fixture(scope="module")
def aliases() -> dict[str, str]:
    table = load_catalog()["gpu_alias"]
    return {a.strip().lower(): g for a, g in zip(table["alias"], table["gpu_id"], strict=True)}


def test_every_spelling_in_the_shared_price_files_resolves_or_is_deliberately_unmodelled(found, catalog):
    assert len(found) > 100  # the files were read, not silently skipped
    outcome = {n: resolve_name(n, catalog) for n in found}
    missing = {
        n: r.unresolved for n, r in outcome.items() if r.gpu is None and n not in NOT_MODELLED | NEEDS_ROW_FACTS
    }
    assert not missing, f"spellings neither resolved nor listed as unmodelled: {missing}"
    for name in NEEDS_ROW_FACTS:
        assert "ambiguous" in outcome[name].unresolved, name


def test_the_unmodelled_list_is_honest(found, catalog):
    # nothing listed as unmodelled resolves after all, and nothing is listed that no file uses
    assert not sorted(n for n in NOT_MODELLED | NEEDS_ROW_FACTS if resolve_name(n, catalog).gpu)
    assert not sorted((NOT_MODELLED | NEEDS_ROW_FACTS) - set(found))


def test_aliases_point_at_catalogued_gpus_and_the_flagships_resolve(aliases):
    gpus = set(load_catalog()["gpu"]["gpu_id"])
    assert set(aliases.values()) <= gpus
    expected = {
        "H100": "H100-SXM", "A100-80GB": "A100-SXM-80GB", "A100-40GB": "A100-SXM-40GB", "B200": "B200",
        "RTXPRO6000S": "RTX-PRO-6000-SE", "H100 (80 GB)": "H100-SXM", "costh100": "H100-SXM",
        "A100 SXM4 40GB": "A100-SXM-40GB", "GAUDI2": "Gaudi2", "RTX6000Ada": "RTX-6000-Ada", "T4G": "T4",
    }
    assert {k: aliases[k.lower()] for k in expected} == expected


def test_ambiguous_names_are_not_aliases(aliases):
    # a bare "A100" is 40 or 80 GB, SXM or PCIe: only the row's memory or instance type can say
    for name in NEEDS_ROW_FACTS:
        assert name.lower() not in aliases


def test_default_aliases_never_disagree(catalog):
    # an alias without a form factor names the default variant of its model (and memory, if it states one)
    table = load_table("gpu_alias")
    seen: dict[tuple[str, float | None], str] = {}
    gpus = {r["gpu_id"]: r for r in load_table("gpu").iter_rows(named=True)}
    for alias, gpu_id in zip(table["alias"], table["gpu_id"], strict=True):
        parsed = parse_name(alias)
        target = parse_name(gpu_id)
        if parsed.form is not None or parsed.model != target.model:
            continue
        size = parsed.memory_gb or gpus[gpu_id]["memory_gb"]
        key = (parsed.model, round(size, -1) if parsed.memory_gb else None)
        assert seen.setdefault(key, gpu_id) == gpu_id, (alias, key, seen[key])
