"""A payload under raw/ over its source's size limit is refused by its size, never read."""

from __future__ import annotations

import tracemalloc
from datetime import date
from pathlib import Path

from sources.kit import raw_store
from sources.kit.registry import spec_for
from sources.kit.spec import Payload
from tests.flows.cli_helpers import gpucalc
from warehouse.loading.writer import parse_kept

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DAY = date(2026, 3, 1)


def sparse(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(size)  # no time, no disk, no memory
    return path


def test_an_oversized_kept_payload_is_refused_by_its_size_without_being_read(tmp_path):
    limit = spec_for("skypilot").max_bytes
    folder = tmp_path / "skypilot" / DAY.isoformat()
    sparse(folder / "aws_vms.csv", limit + 1)
    lambda_vms = (FIXTURES / "skypilot" / "lambda_vms.csv").read_bytes()
    raw_store.save(Payload("skypilot", "lambda_vms.csv", lambda_vms, "https://x/lambda/vms.csv", "lambda"),
                   tmp_path, DAY)
    tracemalloc.start()
    try:
        assert raw_store.sources_on(tmp_path, DAY) == ["skypilot"]
        load = parse_kept("skypilot", tmp_path, DAY)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < limit // 4  # reading it whole would take the limit and more
    assert load.status == "ok" and [k.name for k in load.kept] == ["lambda_vms.csv"]
    assert load.problems == [(
        "skypilot/2026-03-01/aws_vms.csv",
        f"aws_vms.csv: {limit + 1:,} bytes is over the {limit:,}-byte limit for skypilot payloads; not read",
    )]


def test_replay_of_a_day_holding_only_an_oversized_payload_says_so(tmp_path):
    limit = spec_for("quotes_file").max_bytes
    sparse(tmp_path / "raw" / "quotes_file" / DAY.isoformat() / "quotes.csv", limit + 1)
    result = gpucalc("replay", "--date", DAY.isoformat(), "--data-dir", str(tmp_path))
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert f"quotes_file: failed, 0 rows loaded, 0 rejected (quotes.csv: {limit + 1:,} bytes is over the " \
           f"{limit:,}-byte limit for quotes_file payloads; not read)" in result.output
