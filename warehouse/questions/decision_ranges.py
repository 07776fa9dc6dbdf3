"""What a choice's figures may be, and where the managed API would win: a GPU choice's
throughput, time and cost over its estimate's p90 error band, and the demand below which the
API costs less than the smallest fleet. Plain arithmetic on decision rows: the terminal, the
JSON and the report read the same numbers.

A throughput within ±error_p90 of the estimate puts every figure paid per unit of throughput
(time, cost of the job, cost per token) between 1/(1 + error_p90) and 1/(1 - error_p90) of
its own value; a band of 100% or more reaches zero throughput, so those figures have no upper
bound there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

NOT_ESTIMATED = ("managed API", "measured run")  # a price and a measurement: no model to be off
PER_THROUGHPUT = ("usd_per_mtok", "usd_total", "time_to_finish_h")


def is_gpu_choice(row: dict) -> bool:
    """A fleet the model estimated (rent or buy GPUs)."""
    return row.get("choice") not in NOT_ESTIMATED and row.get("platform_id") is not None


def band_error(row: dict) -> float | None:
    """The p90 error a row's figures range over; None where the row has no validated band."""
    return row.get("error_p90") if is_gpu_choice(row) else None


def rate_range(rate: float, error: float) -> tuple[float, float]:
    """A throughput over the band, never below zero (a band of 100% or more reaches it)."""
    return max(rate * (1 - error), 0.0), rate * (1 + error)


def per_rate_range(figure: float, error: float) -> tuple[float, float | None]:
    """A figure paid per unit of throughput over the band: (low, high); high None where the band
    reaches zero throughput, so the figure has no upper bound."""
    return figure / (1 + error), (figure / (1 - error) if error < 1 else None)


def paced_by_demand(workload: dict) -> bool:
    """A serving job with a stated demand: its fleet is sized to the demand and runs at its pace."""
    return workload.get("kind") == "serving" and bool(workload.get("demand_tokens_per_s"))


def range_json(choice: dict, paced: bool) -> dict:
    """The `_low`/`_high` of a choice's `tokens_per_s`, `usd_per_mtok`, `usd_total` and
    `time_to_finish_h` for `--json`, all None where the choice has no band; a high of None beside
    a low: no upper bound. `paced`: the job's demand sets its pace (paced_by_demand)."""
    error = band_error(choice)
    out = {}
    for name in ("tokens_per_s", *PER_THROUGHPUT):
        value = choice.get(name)
        if error is None or value is None:
            low = high = None
        elif name == "tokens_per_s":
            low, high = rate_range(value, error)
        elif name == "time_to_finish_h" and paced:
            low = high = value  # a slower fleet than modelled grows to meet the demand: the pace is the demand's
        else:
            # the cost per token at the fleet's rate: a fleet sized to a demand and slower than
            # modelled needs proportionally more replicas, so its cost scales as a rented job's does
            low, high = per_rate_range(value, error)
        out[f"{name}_low"], out[f"{name}_high"] = low, high
    return out


def api_row(workload: dict, rows: Iterable[dict]) -> dict | None:
    """The managed API row a serving job with a demand is set against; None for a job run at
    its own pace (no demand to break even at) or with no API priced."""
    if not paced_by_demand(workload):
        return None
    return next((row for row in rows if row.get("choice") == "managed API"), None)


FLEET_FIGURES = ("usd_per_hour", "instances", "deployments", "unit_gpus", "n_gpus", "tokens_per_s")


def replica_usd_per_hour(row: dict) -> float:
    """What the smallest fleet, one replica, costs an hour: whole instances are paid, so a replica
    alone pays all of an instance or rack it shared (and its share of a fleet's prefill GPUs)."""
    return row["usd_per_hour"] / row["instances"] * math.ceil(row["instances"] / row["deployments"])


def replica_tokens_per_s(row: dict) -> float:
    """One replica's capacity: the modelled rate is that of `n_gpus` GPUs."""
    return row["tokens_per_s"] * row["unit_gpus"] / row["n_gpus"]


def api_break_even(row: dict, api: dict | None) -> float | None:
    """The demand, in the row's tokens per second, below which the managed API costs less than
    this fleet: a fleet shrinks only in whole replicas, so below the demand at which the API's
    price pays for one replica's hour, the API wins. math.inf where one replica at full load
    already costs more per token than the API; None where the row or the API lacks a figure.

    This is the first flip: above it the API wins again just past each replica added only where
    the break-even is more than half a replica's capacity."""
    if api is None or not api.get("api_usd_per_mtok_output") or not is_gpu_choice(row):
        return None
    if not all(row.get(name) for name in FLEET_FIGURES):
        return None
    break_even = replica_usd_per_hour(row) / (api["api_usd_per_mtok_output"] / 1e6 * 3600)
    return math.inf if break_even >= replica_tokens_per_s(row) else break_even


def break_even_json(row: dict, api: dict | None) -> dict:
    """`api_break_even_tokens_per_s` and `api_cheaper_at_any_demand` for `--json` (None without an API row)."""
    flip = api_break_even(row, api)
    return {"api_break_even_tokens_per_s": flip if flip is not None and flip < math.inf else None,
            "api_cheaper_at_any_demand": None if flip is None else flip == math.inf}
