"""Your catalog rows (`<data>/catalog/`) are answered as soon as they are written, not only after
the next nightly run, and a file of yours that cannot be taken is said, not skipped in silence."""

from __future__ import annotations

import json
from pathlib import Path

from sources.bundled.catalog import data_path
from tests.flows.cli_helpers import gpucalc

CHANGED = "your catalog (<data>/catalog/) changed since the warehouse loaded it"
SERVE = ["--input-len", "1024", "--output-len", "500", "--ttft-ms", "2000", "--tpot-ms", "50", "--demand", "5000",
         "--json"]


def add_renamed(data: Path, file: str, key: str, new_key: str) -> None:
    """`<data>/catalog/<file>`: the bundled row `key` again, as `new_key` (the same thing under your name)."""
    lines = [line for line in data_path(file).read_text().splitlines() if not line.startswith("#")]
    row = next(line for line in lines[1:] if line.startswith(key + ","))
    (data / "catalog").mkdir(exist_ok=True)
    (data / "catalog" / file).write_text(f"{lines[0]}\n{new_key}{row[len(key):]}\n")


def test_a_model_you_add_is_served_at_once_and_as_its_twin_is(offline_copy, offline_data):
    add_renamed(offline_copy, "model.csv", "llama31-8b", "my-8b")
    yours = gpucalc("serve", "--model", "my-8b", *SERVE, "--data-dir", str(offline_copy))
    # the twin as the night's own warehouse answers it, the job the bundled rows answer below too,
    # so both are laid out from the same inputs and the second reuses the first's layouts
    twin = gpucalc("serve", "--model", "llama31-8b", *SERVE, "--data-dir", str(offline_data))
    assert yours.exit_code == 0 and twin.exit_code == 0, yours.output
    # no API sells a model of that name: the twin's API row, and where it would win, are its own
    api = ("api_break_even_tokens_per_s", "api_cheaper_at_any_demand")
    rented = [{k: v for k, v in c.items() if k not in api}
              for c in json.loads(twin.stdout)["choices"] if c["choice"] != "managed API"]
    mine = json.loads(yours.stdout)["choices"]
    assert [{k: v for k, v in c.items() if k not in api} for c in mine] == rented != []
    assert {c["api_break_even_tokens_per_s"] for c in mine} == {None}


def test_a_workload_you_add_is_compared_at_once_and_says_from_where(offline_copy):
    before = gpucalc("compare", "dflash-qwen36-27b", "--json", "--data-dir", str(offline_copy))
    assert before.exit_code == 0 and CHANGED not in before.output  # nothing changed: the night's answer
    add_renamed(offline_copy, "workload.csv", "dflash-qwen36-27b", "my-dflash")
    yours = gpucalc("compare", "my-dflash", "--json", "--data-dir", str(offline_copy))
    assert yours.exit_code == 0 and CHANGED in yours.stderr, yours.output
    keys = ("choice", "platform_id", "n_gpus", "pricing", "usd_total", "time_to_finish_h")
    mine = [{k: c[k] for k in keys} for c in json.loads(yours.stdout)["choices"]]
    night = [{k: c[k] for k in keys} for c in json.loads(before.stdout)["choices"] if c["choice"] != "measured run"]
    assert mine == night != []  # the seed's measured run is of its workload, not of yours


def test_a_catalog_file_that_cannot_be_read_is_said_and_the_bundled_rows_answer(offline_copy):
    (offline_copy / "catalog").mkdir()
    (offline_copy / "catalog" / "model.csv").write_text("id,params\nfoo,7\n")
    result = gpucalc("serve", "--model", "llama31-8b", *SERVE, "--data-dir", str(offline_copy))
    assert result.exit_code == 0, result.output
    assert f"your catalog: {offline_copy / 'catalog' / 'model.csv'} could not be read as model.csv " \
           "(unknown columns ['id', 'params']" in result.stderr
    assert json.loads(result.stdout)["choices"]
