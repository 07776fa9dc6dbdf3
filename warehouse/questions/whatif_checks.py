"""Refuse a measurement the hardware cannot have made: a rate whose FLOPs per second exceed
the GPUs' dense peak in the dtype they ran. For a role pipeline with a given layout, each role
is checked on its own GPUs; without one, both roles together on all of them (any split could
have run)."""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.questions.whatif import SideResult
from warehouse.questions.whatif_inputs import SideSpec, WhatIfError
from warehouse.store.sql_text import sql_text


@dataclass
class StageLoad:
    stage: str
    flop_per_token: float
    how: str  # the FLOPs per token spelled out
    gpus: int
    platform_id: str
    peak_tflops: float  # dense, per GPU, in `dtype`
    dtype: str

    def share(self, tokens_per_s: float) -> float:
        return tokens_per_s * self.flop_per_token / (self.gpus * self.peak_tflops * 1e12)


def _peak(con, platform_id: str, workload_id: str, dtype: str) -> tuple[float, str]:
    return con.execute(
        "select peak_tflops, run_dtype from platform_workload where platform_id = ? and workload_id = ? and dtype = ?",
        [platform_id, workload_id, dtype],
    ).fetchone()


def stage_loads(con, workload: dict, side: SideResult, spec: SideSpec) -> list[StageLoad]:
    """The FLOPs each stage of the side does per token, and the peak of the GPUs doing them."""
    wid, dtype = workload["workload_id"], workload["dtype"]
    peak, run_dtype = _peak(con, side.platform_id, wid, dtype)
    if workload["kind"] != "role_pipeline":
        flops = con.execute(sql_text("warehouse.questions", "whatif_flop_per_token.sql"), [wid]).fetchone()[0]
        stage = "serving" if workload["kind"] == "serving" else "training"
        how = (f"{flops / 1e9:,.1f} GFLOP (2 per active weight for every input and output token, a lower bound)"
               if stage == "serving" else f"{flops / 1e9:,.1f} GFLOP (6 per active weight plus attention)")
        return [StageLoad(stage, flops, how, side.n_gpus, side.platform_id, peak, run_dtype)]
    target = workload["producer_gflop_per_token"] * 1e9
    drafter = workload["consumer_gflop_per_unit"] * 1e9 * workload["units_per_token"]
    drafter_how = (f"{workload['consumer_gflop_per_unit']:g} GFLOP x {workload['units_per_token']:g} draft "
                   "positions per token")
    if spec.drafter is None and (spec.split is None or spec.split == "shared"):
        how = (f"({workload['producer_gflop_per_token']:g} GFLOP target forward + {drafter_how}, "
               "every GPU doing either)")
        return [StageLoad("target forward and drafter training", target + drafter, how, side.n_gpus,
                          side.platform_id, peak, run_dtype)]
    producers = side.n_gpus - (side.drafter_gpus or int(spec.split.split("+")[1]))
    consumer_platform = side.drafter_platform_id or side.platform_id
    consumer_peak, consumer_dtype = _peak(con, consumer_platform, wid, dtype)
    return [
        StageLoad("target forward", target, f"{workload['producer_gflop_per_token']:g} GFLOP", producers,
                  side.platform_id, peak, run_dtype),
        StageLoad("drafter training", drafter, drafter_how, side.n_gpus - producers, consumer_platform,
                  consumer_peak, consumer_dtype),
    ]


def check_measurement(con, workload: dict, side: SideResult, spec: SideSpec) -> dict[str, float]:
    """Each stage's share of the dense peak at the measured rate; refuse any above 100%."""
    rate = side.tokens_per_s
    shares = {}
    for load in stage_loads(con, workload, side, spec):
        share = load.share(rate)
        shares[load.stage] = share
        if share > 1.0:
            need = rate * load.flop_per_token / 1e12
            raise WhatIfError(
                f"the measured {rate:,.0f} tokens/s is more than {side.fleet or side.platform_id} can do: "
                f"{load.stage} needs {rate:,.0f} tokens/s x {load.how} = {need:,.0f} TFLOP/s on {load.gpus} GPU(s) "
                f"of {load.platform_id}, whose dense {load.dtype} peak is {load.gpus} x {load.peak_tflops:,.0f} = "
                f"{load.gpus * load.peak_tflops:,.0f} TFLOP/s ({share:.0%} of peak). Check --measured or "
                "--measured-days and the side's GPUs"
                + (", its layout and --units-per-token" if workload["kind"] == "role_pipeline" else "") + "."
            )
    return shares
