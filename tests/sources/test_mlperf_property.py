"""Property: whatever bytes a kept MLPerf payload holds, parse returns rows that fit the
contract, or refuses the payload with SourceError; it never raises anything else.

Starts from the real-format fixture bundles and mutates them (keys, types, file texts, MLLOG
lines), plus arbitrary bytes. Derandomised, so the same examples run every time."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sources import mlperf
from sources.kit.contracts import BENCHMARK_METRICS, BENCHMARK_REQUIRED, BENCHMARK_RESULT
from sources.kit.spec import Parsed, Payload, SourceError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mlperf"
BUNDLES = [json.loads(p.body) for root in ("inference_results_v5.1", "training_results_v5.1")
           for p in mlperf.from_path(FIXTURES / root)]
DAY = date(2026, 6, 2)
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
noise = st.text(max_size=60) | st.sampled_from([
    "Result is : VALID", "Tokens per second: inf", "Tokens per second: -5", "Completed tokens per second: 1e400",
    ':::MLLOG {"key": "run_stop", "time_ms": 1e400, "metadata": {"status": "success"}}',
    ':::MLLOG {"key": "block_start", "time_ms": 5, "metadata": {"step": "x", "samples_count": 1e300}}',
    ':::MLLOG {"key": ["not", "text"], "time_ms": 1}', ':::MLLOG {"key": "global_batch_size", "value": true}',
    '"accelerator_model_name": "A (x2), B (x3)"', '"accelerators_per_node": 1e30', '{"scaling_factor": 1e308}',
])


def _check(payload: Payload) -> None:
    try:
        result = mlperf.parse(payload, DAY)
    except SourceError:
        return
    assert isinstance(result, Parsed) and dict(result.rows.schema) == BENCHMARK_RESULT
    rows = result.rows
    assert rows.select(pl.col(list(BENCHMARK_REQUIRED)).null_count()).sum_horizontal().item() == 0 or rows.is_empty()
    assert set(rows["metric"].to_list()) <= set(BENCHMARK_METRICS)
    assert all(math.isfinite(v) and v > 0 for v in rows["value"].to_list())
    assert all(r.rule.startswith("mlperf_") and r.detail for r in result.rejects)


@st.composite
def mutated(draw) -> Payload:
    bundle = json.loads(json.dumps(draw(st.sampled_from(BUNDLES))))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["key", "drop", "file", "folder", "line", "line", "line", "cut", "cut"]))
        if kind == "key":
            bundle[draw(st.sampled_from(sorted(bundle)))] = draw(json_values)
        elif kind == "drop" and bundle:
            bundle.pop(draw(st.sampled_from(sorted(bundle))))
        elif kind == "folder" and isinstance(bundle.get("folders"), dict):
            bundle["folders"][draw(st.text(max_size=20))] = draw(st.text(max_size=40))
        elif isinstance(bundle.get("files"), dict) and bundle["files"]:
            path = draw(st.sampled_from(sorted(bundle["files"])))
            text = bundle["files"][path] if isinstance(bundle["files"][path], str) else ""
            lines = text.splitlines() or [""]
            at = draw(st.integers(0, len(lines) - 1))
            if kind == "file":
                bundle["files"][path] = draw(json_values)
            elif kind == "line":
                lines[at] = draw(noise)
                bundle["files"][path] = "\n".join(lines)
            else:
                bundle["files"][path] = text[: draw(st.integers(0, len(text)))]
    return Payload("mlperf", "x.json", json.dumps(bundle).encode(), "fixture")


@SETTINGS
@given(mutated())
def test_mutated_bundles_parse_to_contract_rows_or_source_error(payload):
    _check(payload)


@SETTINGS
@given(st.binary(max_size=300) | st.text(max_size=200).map(str.encode))
def test_arbitrary_bytes_parse_to_contract_rows_or_source_error(body):
    _check(Payload("mlperf", "x.json", body, "fixture"))


def test_the_unmutated_fixtures_parse_to_rows():
    assert sum(mlperf.parse(Payload("mlperf", "x", json.dumps(b).encode(), "f"), DAY).rows.height for b in BUNDLES) == 9
