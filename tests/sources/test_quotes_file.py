"""Quotes file: the four price forms with hand-worked numbers, the seed example in YAML and
CSV, and one reject per row problem naming the row and the rule."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from sources import quotes_file
from sources.bundled.ownership import owned_usd_per_hour
from sources.kit.contracts import PRICE_QUOTE
from sources.kit.spec import Payload, SourceError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "quotes_file"
DAY = date(2026, 6, 2)


def parse_text(text: str, name: str = "quotes.yaml"):
    return quotes_file.parse(Payload("quotes_file", name, text.encode(), f"/data/{name}"), DAY)


def parse_fixture(name: str):
    path = FIXTURES / name
    return quotes_file.parse(Payload("quotes_file", name, path.read_bytes(), str(path)), DAY)


def price_of(parsed, instance_type: str) -> float:
    return parsed.rows.filter(parsed.rows["instance_type"] == instance_type)["usd_per_instance_hour"][0]


def test_ownership_formula_hand_worked():
    # capex 43800 / 5 y / 8760 h = 1.00; energy 2.0 kW x 1.25 PUE x 0.20 = 0.50;
    # colo 146 USD/kW-month x 2.0 kW x 12 / 8760 = 0.40; (1.00 + 0.50 + 0.40) / 0.95 = 2.00
    assert owned_usd_per_hour(
        43800, 5, 2.0, 0.20, pue=1.25, colo_usd_per_kw_month=146, utilization=0.95
    ) == pytest.approx(2.00)
    # terms left out take the catalog's assumptions, as the catalog's own platforms do:
    # utilisation 0.8 (assumptions.csv) -> 1.00 / 0.8
    assert owned_usd_per_hour(8760, 1, 0.0, 0.0) == pytest.approx(1.0 / 0.8)


def test_seed_example_yaml():
    parsed = parse_fixture("quotes.yaml")
    assert parsed.rejects == [] and dict(parsed.rows.schema) == PRICE_QUOTE
    owned = parsed.rows.filter(parsed.rows["instance_type"] == "ws-rtxpro6000-4").row(0, named=True)
    # (43800 / 5 / 8760 + 2.8 x 1.0 x 0.25 + 0) / 0.8 = (1.00 + 0.70) / 0.8 = 2.125
    assert owned["usd_per_instance_hour"] == pytest.approx(2.125)
    assert (owned["pricing"], owned["gpus_per_instance"], owned["observed_at"]) == (
        "owned",
        4.0,
        date(2026, 6, 1),
    )
    assert price_of(parsed, "1x RTX PRO 6000 (rented)") == pytest.approx(1.50)
    # B200 at 3.4x the per-GPU-hour of the rented RTX PRO 6000: 3.4 x 1.50 x 8 GPUs = 40.80
    b200 = parsed.rows.filter(parsed.rows["gpu_name"] == "B200").row(0, named=True)
    assert b200["usd_per_instance_hour"] == pytest.approx(40.80) and b200["pricing"] == "on_demand"
    reserved = parsed.rows.filter(parsed.rows["pricing"] == "reserved_1y").row(0, named=True)
    assert reserved["source_ref"] == "email from sales, 2026-05-28" and reserved["region"] == "us-east"
    # defaults: region global, observed_at = the day passed in, source_ref = the file
    assert (
        b200["region"] == "global"
        and b200["observed_at"] == DAY
        and b200["source_ref"].endswith("quotes.yaml")
    )
    assert parsed.rows["source_row"].to_list() == [1, 2, 3, 4]


def test_csv_and_yaml_agree():
    yaml_rows = parse_fixture("quotes.yaml").rows.drop("source_ref")
    csv_parsed = parse_fixture("quotes.csv")
    assert csv_parsed.rejects == []
    assert csv_parsed.rows.drop("source_ref").equals(yaml_rows)


ROW = "- {provider: p, instance_type: it%d, gpu_name: H100, gpus_per_instance: 8, %s}\n"


@pytest.mark.parametrize(
    "fields, rule",
    [
        ("usd_per_instance_hour: 20, usd_per_gpu_hour: 2.5", "quote_multiple_price_forms"),
        ("note: forgot the price", "quote_missing_price"),
        ("relative_to: nothing-like-this, multiplier: 2", "quote_relative_not_found"),
        ("relative_to: it1", "quote_incomplete_relative"),
        ("usd_per_gpu_hour: -2.5", "quote_negative_value"),
        ("usd_per_gpu_hour: 2.5, currency: EUR", "quote_not_usd"),
        ("usd_per_gpu_hour: 2.5, pricing: spot-ish", "quote_bad_pricing"),
        ("purchase_usd: 300000, years: 4", "quote_incomplete_ownership"),
        (
            "purchase_usd: 300000, years: 4, power_kw: 10, usd_per_kwh: 0.1, pricing: on_demand",
            "quote_ownership_pricing",
        ),
        (
            "purchase_usd: 300000, years: 4, power_kw: 10, usd_per_kwh: 0.1, utilization: 1.5",
            "quote_bad_value",
        ),
        ("usd_per_gpu_hour: two", "quote_not_a_number"),
        ("usd_per_gpu_hour: 2.5, observed_at: last tuesday", "unparseable_date"),
        ("usd_per_gpu_hour: 2.5, discount: 10", "quote_unknown_field"),
    ],
)
def test_row_problems_are_rejects_naming_the_row(fields, rule):
    text = ROW % (1, "usd_per_gpu_hour: 2.0") + ROW % (2, fields)
    parsed = parse_text(text)
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, rule)]
    assert parsed.rejects[0].detail.startswith("quote 2 (it2)")
    assert parsed.rows["instance_type"].to_list() == ["it1"]  # the good row survives


def test_a_price_basis_is_read_whatever_its_case_and_separators():
    text = "".join(ROW % (n, f"usd_per_gpu_hour: 2.0, pricing: {given}")
                   for n, given in enumerate(["On-Demand", "SPOT", "reserved 1y", "Reserved-3Y", "spot-ish"], 1))
    parsed = parse_text(text)
    assert parsed.rows["pricing"].to_list() == ["on_demand", "spot", "reserved_1y", "reserved_3y"]
    ((reject),) = parsed.rejects
    assert (reject.source_row, reject.rule) == (5, "quote_bad_pricing")
    assert "pricing 'spot-ish' is not one of on_demand, spot" in reject.detail


def test_relative_chains_cycles_ambiguity_and_rejected_targets():
    text = (
        ROW % (1, "usd_per_gpu_hour: 2.0")
        + ROW % (2, "relative_to: it1, multiplier: 1.5")  # 1.5 x 2.0 x 8 = 24
        + ROW % (3, "relative_to: it2, multiplier: 2")  # chain: 2 x 3.0 x 8 = 48
        + ROW % (4, "relative_to: it5, multiplier: 1")  # 4 -> 5 -> 4: a cycle
        + ROW % (5, "relative_to: it4, multiplier: 1")
        + ROW % (6, "relative_to: H100, multiplier: 1")  # gpu_name H100 matches several quotes
        + ROW % (7, "usd_per_gpu_hour: -1")
        + ROW % (8, "relative_to: it7, multiplier: 1")
    )
    parsed = parse_text(text)
    assert price_of(parsed, "it2") == pytest.approx(24.0)
    assert price_of(parsed, "it3") == pytest.approx(48.0)
    assert {r.source_row: r.rule for r in parsed.rejects} == {
        4: "quote_relative_cycle",
        5: "quote_relative_cycle",
        6: "quote_relative_ambiguous",
        7: "quote_negative_value",
        8: "quote_relative_target_rejected",
    }


def test_relative_by_gpu_name_narrowed_by_pricing():
    text = (
        "- {provider: self, instance_type: ws, gpu_name: RTX PRO 6000, gpus_per_instance: 4,"
        " purchase_usd: 43800, years: 5, power_kw: 2.8, usd_per_kwh: 0.25, utilization: 0.8}\n"
        "- {provider: cloud, instance_type: rented, gpu_name: RTX PRO 6000, gpus_per_instance: 1,"
        " usd_per_gpu_hour: 1.5}\n"
        "- {provider: cloud, instance_type: b200, gpu_name: B200, gpus_per_instance: 8,"
        " relative_to: RTX PRO 6000, multiplier: 3.4}\n"
    )
    # two quotes have gpu_name "RTX PRO 6000"; the on_demand one is the rented card
    assert price_of(parse_text(text), "b200") == pytest.approx(3.4 * 1.5 * 8)


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("quotes.yaml", "", "no quotes"),
        ("quotes.yaml", "quotes: [ {provider: p, instance_type: x", "invalid YAML"),
        ("quotes.yaml", "provider: p\n", "expected a list"),
        (
            "quotes.csv",
            "provider,instance_type,gpu,gpus_per_instance,usd_per_gpu_hour\np,x,H100,8,2\n",
            "missing \\['gpu_name'\\]",
        ),
        ("quotes.csv", "provider,instance_type,gpu_name,gpus_per_instance\n", "no quotes"),
        ("quotes.txt", "anything", "must end in"),
    ],
)
def test_unusable_file_raises_source_error(name, text, message):
    with pytest.raises(SourceError, match=message):
        parse_text(text, name)


def test_file_only():
    with pytest.raises(SourceError, match="quotes_file is file-only: use gpucalc ingest quotes --file PATH"):
        quotes_file.fetch(None, DAY)
    assert quotes_file.SPEC.live is False and quotes_file.SPEC.kind == "prices"


# --- one bad record is one reject, whatever it holds ----------------------------------------------

CSV_HEAD = "provider,instance_type,gpu_name,gpus_per_instance,usd_per_gpu_hour,observed_at\n"


def parse_csv(*rows: str, end: str = "\n"):
    return parse_text(CSV_HEAD + "\n".join(rows) + end, "quotes.csv")


@pytest.mark.parametrize(
    "cells, rule",
    [
        ("p,it2,H100,8,nan,", "non_finite_value"),
        ("p,it2,H100,8,inf,", "non_finite_value"),
        ("p,it2,H100,8,1e308,", "implausible_value"),  # 8 x 1e308 is not a price
        ("p,it2,H100,8,1e999,", "implausible_value"),
        ("p,it2,H100,1e300,2.0,", "implausible_value"),
        ("p,it2,H100,2000,2.0,", "implausible_value"),
        ("p,it2,H100,8,-1,", "quote_negative_value"),
        ("p,it2,H100,8,2.0,20260101", "unparseable_date"),
        ("p,it2,H100,8,2.0,2026-13-45", "unparseable_date"),
        ("p,it2,H100,8,1,50,", "malformed_row"),  # a decimal comma once loaded as 1.00
    ],
)
def test_hostile_cells_are_one_named_reject(cells, rule):
    parsed = parse_csv("p,it1,H100,8,2.0,", cells, "p,it3,H100,8,2.0,")
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, rule)]
    assert parsed.rows["instance_type"].to_list() == ["it1", "it3"]


def test_a_file_cut_mid_number_rejects_its_last_row():
    text = "provider,instance_type,gpu_name,gpus_per_instance,usd_per_gpu_hour\np,it1,H100,8,2.75\np,it2,H100,8,2.7"
    parsed = parse_text(text, "quotes.csv")  # the file was cut inside "2.75"
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, "possibly_truncated")]
    assert "add a final newline if it is complete" in parsed.rejects[0].detail


@pytest.mark.parametrize(
    "fields, rule",
    [
        ("usd_per_gpu_hour: [2.5]", "wrong_type"),
        ("usd_per_gpu_hour: .nan", "non_finite_value"),
        ("usd_per_gpu_hour: 2.5, observed_at: 2026-13-45", "unparseable_date"),  # once refused the whole file
        ("usd_per_gpu_hour: 2.5, observed_at: 20260101", "unparseable_date"),
        ("usd_per_gpu_hour: 2.5, gpus_per_instance: 1" + "0" * 5000, "implausible_value"),
        ("usd_per_gpu_hour: 2.5, instance_type: {a: 1}", "wrong_type"),
    ],
)
def test_hostile_yaml_values_are_one_named_reject(fields, rule):
    parsed = parse_text(ROW % (1, "usd_per_gpu_hour: 2.0") + ROW % (2, fields))
    assert [(r.source_row, r.rule) for r in parsed.rejects] == [(2, rule)]


def test_a_relative_quote_that_overflows_is_rejected_with_its_dependants():
    text = (
        ROW % (1, "usd_per_gpu_hour: 2.0")
        + ROW % (2, "relative_to: it1, multiplier: 1e305")  # 1e305 x 2 x 8 is not a price
        + ROW % (3, "relative_to: it2, multiplier: 1")
    )
    parsed = parse_text(text)
    assert {r.source_row: r.rule for r in parsed.rejects} == {
        2: "implausible_value", 3: "quote_relative_target_rejected"}


def test_a_relative_target_later_in_the_file_and_a_long_chain_resolve():
    rows = [ROW % (n, f"relative_to: it{n + 1}, multiplier: 1") for n in range(1, 300)]
    parsed = parse_text("".join(rows) + ROW % (300, "usd_per_gpu_hour: 2.0"))
    assert parsed.rejects == [] and parsed.rows.height == 300
    assert set(parsed.rows["usd_per_instance_hour"].to_list()) == {16.0}
    assert parsed.rows["source_row"].to_list() == list(range(1, 301))


def test_thousands_of_bad_rows_are_capped_with_a_summary():
    parsed = parse_csv(*[f"p,it{n},H100,8,two," for n in range(1500)], "p,ok,H100,8,2.0,")
    assert parsed.rows["instance_type"].to_list() == ["ok"]
    assert len(parsed.rejects) == 1001 and parsed.rejects[-1].rule == "too_many_rejects"
    assert "500 more rejected rows" in parsed.rejects[-1].detail


def test_gpu_memory_is_taken_when_the_file_gives_it():
    parsed = parse_text(ROW % (1, "usd_per_gpu_hour: 2.0, gpu_memory_gb: 80"))
    assert parsed.rows["gpu_memory_gb"].to_list() == [80.0]
    assert parsed.rows["price_statistic"].to_list() == ["list"]


def test_spec_limits_the_size():
    assert quotes_file.SPEC.max_bytes == 2 * 1024 * 1024
