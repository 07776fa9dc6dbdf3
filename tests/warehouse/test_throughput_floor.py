"""A measured rate no real run can be that slow (a unit or parsing error) is rejected by a named
rule, like one above the hardware's peak. The toy run: toy-pretrain trains a 1B model (6 x 1e9
FLOPs per token) on TOY (1000 TFLOP/s bf16), so r tokens/s on one GPU is r x 6e-6 of its peak."""

from datetime import date

import pytest

from sources.kit.spec import Parsed
from tests.warehouse.toy_catalog import benchmark, benchmark_frame, toy_catalog
from warehouse.loading.load import RunContext, load_benchmarks
from warehouse.loading.reference_load import load_reference

RUN = RunContext.new("2026-11-29-test", date(2026, 11, 29))
RUNS = "user_runs/2026-11-29/runs.csv"


@pytest.fixture
def warehouse(con):
    load_reference(con, toy_catalog(), RUN)
    return con


def test_a_rate_below_the_physical_floor_is_rejected_by_name(warehouse):
    # 1e-9 tokens/s is 6e-15 of peak, far under the 1e-8 floor; 0.01 tokens/s (6e-8) is slow but possible
    runs = [benchmark(source_row=1, value=1e-9), benchmark(source_row=2, system="slow toy", value=0.01)]
    result = load_benchmarks(warehouse, "user_runs", Parsed(benchmark_frame(runs)), RUN, [RUNS])
    assert (result.loaded, result.rejected) == (1, 1)
    assert warehouse.execute("select system, value from benchmark_result").fetchall() == [("slow toy", 0.01)]
    ((row, rule, detail),) = warehouse.execute("select source_row, rule, detail from rejected_row").fetchall()
    assert (row, rule) == (1, "implausible_throughput_low")
    assert detail == (
        "user_runs row 1: 1e-09 tokens/s on 1 x TOY implies 6e-15 of the GPU's highest dense peak for "
        "toy-pretrain, below the floor of 1e-08 no real run falls under: a unit or parsing error?"
    )


def test_a_zero_rate_is_only_not_positive(warehouse):
    result = load_benchmarks(warehouse, "user_runs", Parsed(benchmark_frame([benchmark(value=0.0)])), RUN, [RUNS])
    assert result.rejected == 1
    assert warehouse.execute("select rule from rejected_row").fetchall() == [("value_positive",)]
