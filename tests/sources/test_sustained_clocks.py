"""Power-capped sustained clocks: every PCIe board in the catalog has one, with its source.

The derivations are in sources/data/CATALOG.md section 1.5; the hand-worked peak below is H100
NVL's there.
"""

from __future__ import annotations

import re
from datetime import date
from importlib import resources

import polars as pl
import pytest

from sources.bundled.catalog import load_catalog, load_table
from warehouse.loading.load import RunContext
from warehouse.loading.reference_load import load_reference
from warehouse.store.db import model_files

NOTE = re.compile(r"\(sustained clock (\d+(?:\.\d+)?)[:,]")


@pytest.fixture(scope="module")
def gpu() -> pl.DataFrame:
    return load_table("gpu")


def boards(gpu: pl.DataFrame) -> pl.DataFrame:
    """PCIe, NVL-bridge, workstation and server-edition cards: every form factor that says PCIe."""
    return gpu.filter(pl.col("form_factor").str.contains("PCIe"))


def test_every_pcie_board_has_a_ratio_in_0_1(gpu):
    found = boards(gpu)
    assert found.height >= 30  # H100 PCIe/NVL, H200 NVL, L40S, L4, A100 PCIe, the RTX cards, ...
    assert {"H100-PCIe", "H100-NVL", "H200-NVL", "L40S", "L40", "L4", "A100-PCIe-80GB", "A100-PCIe-40GB",
            "RTX-PRO-6000-WS", "RTX-PRO-6000-SE", "RTX-PRO-6000-MaxQ", "RTX-6000-Ada", "RTX-4090", "RTX-5090",
            "A10", "A40"} <= set(found["gpu_id"])
    missing = found.filter(pl.col("sustained_clock_ratio").is_null())["gpu_id"].to_list()
    assert missing == []
    outside = found.filter((pl.col("sustained_clock_ratio") <= 0) | (pl.col("sustained_clock_ratio") > 1))
    assert outside.is_empty(), outside.select("gpu_id", "sustained_clock_ratio")


def test_each_ratio_is_cited_in_its_row_with_the_same_value(gpu):
    for row in boards(gpu).iter_rows(named=True):
        entries = [e for e in row["source"].split(";") if "(sustained clock" in e]
        assert len(entries) == 1, (row["gpu_id"], entries)
        assert entries[0].startswith("https://"), (row["gpu_id"], entries[0])
        cited = NOTE.search(entries[0])
        assert cited, (row["gpu_id"], entries[0])
        assert float(cited.group(1)) == pytest.approx(row["sustained_clock_ratio"]), row["gpu_id"]
        assert "CATALOG.md 1.5" in entries[0]


def test_only_boards_carry_a_ratio(gpu):
    # SXM, OAM, superchip and TPU parts are the references their families' efficiencies were
    # measured on: null, read as 1
    others = gpu.filter(~pl.col("form_factor").str.contains("PCIe") & pl.col("sustained_clock_ratio").is_not_null())
    assert others.is_empty(), others["gpu_id"].to_list()


def test_catalog_md_derives_every_ratio_with_the_same_value(gpu):
    text = resources.files("sources").joinpath("data", "CATALOG.md").read_text()
    section = text.split("### 1.5 ", 1)[1].split("\n## ", 1)[0]
    rows = re.finditer(r"^\| ([A-Za-z0-9-]+) \| (\d+(?:\.\d+)?) \|", section, re.M)
    table = {m.group(1): float(m.group(2)) for m in rows}
    expected = dict(boards(gpu).select("gpu_id", "sustained_clock_ratio").iter_rows())
    assert table == pytest.approx(expected)


def test_h100_nvl_peaks_are_held_at_its_sustained_clock(con):
    # CATALOG.md 1.5: H100 PCIe sustains 0.832 x 1,620 MHz = 1,347 MHz at 350 W over 114 SMs; at
    # 400 W over 132 SMs, 1,347 x sqrt((400/132)/(350/114)) = 1,338 MHz of the 1,545 MHz behind its
    # 835.5 TF peak: 0.87. BF16 835.5 x 0.87 = 726.885 TF, FP8 1,670.5 x 0.87 = 1,453.335 TF,
    # softmax exponentials 3.77e12 x 0.87 = 3.2799e12 /s; its 3.9 TB/s memory is not capped.
    load_reference(con, load_catalog(), RunContext.new("clocks", date(2026, 11, 29)))
    con.execute(dict(model_files())["010_platform_spec.sql"])
    nvl = con.execute(
        "select clock_ratio, bf16_tflops, fp8_tflops, fp4_tflops, exp_per_s, mem_bw_tbps "
        "from platform_spec where platform_id = 'h100-nvl-8'").fetchone()
    assert nvl[0] == pytest.approx(0.87)
    assert nvl[1] == pytest.approx(726.885)
    assert nvl[2] == pytest.approx(1453.335)
    assert nvl[3] is None  # Hopper has no FP4
    assert nvl[4] == pytest.approx(3.2799e12)
    assert nvl[5] == pytest.approx(3.9)
    sxm = con.execute("select clock_ratio, bf16_tflops from platform_spec where platform_id = 'hgx-h100-8'").fetchone()
    assert sxm == pytest.approx((1.0, 989.0))
