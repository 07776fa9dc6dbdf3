"""methodology.md: how every estimate is made, what it rested on that night, and every source."""

from __future__ import annotations

import polars as pl

from reports import chart_set, queries
from reports.markdown import image, page_link, source_link, table
from warehouse.questions.plain_text import fmt_number, fmt_pct

MODEL_IN_WORDS = """\
## The model in plain words

Every estimate is a roofline model: for each step of the job it works out how long the
arithmetic takes (the FLOPs divided by the GPU's dense peak for the precision, times an
efficiency), how long moving the weights and caches through memory takes (bytes divided by
memory bandwidth times an efficiency), and how long the GPUs spend talking to each other
(bytes over the link that carries them: NVLink inside a scale-up domain, PCIe through the
host, the network between nodes). The slowest of the three is the step's **bottleneck**.

- **Training and fine-tuning**: every GPU count and every split into tensor, pipeline and data
  parallel groups (with selective or full recompute, ZeRO-1 or FSDP sharding) is tried; a step
  processes one global batch. A layout that needs more memory per GPU than the GPU offers
  (after a safety headroom) is refused. FLOPs per token follow the 6N rule plus attention.
- **Serving**: per replica of tensor x pipeline GPUs and for every batch size, a decode step
  reads the weights once and each sequence's KV cache, and carries the prefill of the
  requests that arrive; tokens per second is the batch over the step time. Offline serving
  takes the batch with the most throughput that fits; Server and Interactive scenarios must
  also meet the time-to-first-token and time-per-output-token limits, else the layout is
  refused for latency.
- **Role pipelines** (the seed's DFlash drafter training): target GPUs produce hidden states,
  drafter GPUs train on them; every split of the GPUs between the roles is tried and the
  slowest of producing, moving and consuming sets the pace.
- **Calibration**: each measured benchmark is set against the model's prediction for the same
  workload, GPU and count; the ratios pool (geometric mean) from "same workload and GPU"
  (*measured*) through wider groups (*calibrated*); with none, the documented efficiencies
  stand (*default*). Each estimate uses the most specific level that has data.
- **Error band**: every benchmark is predicted again from the other accelerators only
  (leave one accelerator out); the median and 90th percentile of those errors per workload
  kind and confidence are the `±` every estimate carries.
- **Time and cost**: time to finish is the job's tokens over the calibrated tokens per second,
  plus an allowance for failed work; you pay for whole instances, `ceil(GPUs / GPUs per
  instance)`, at each quote's hourly price; owning is priced as capex over the ownership
  years plus power x PUE and colocation, over the utilisation. USD per million tokens is the
  hourly price over the tokens produced in an hour.

The formulas, with their sources, are in `docs/model.md` and in SQL you can call in the
warehouse (`warehouse/schema/020_macros.sql`, `warehouse/models/*.sql`).
"""


def page(con, night, charts: dict) -> str:
    out = [f"# Methodology and sources — {night.run_date.isoformat()}\n",
           f"{page_link('Back to the report', 'index.md')}\n", MODEL_IN_WORDS]
    out.append("## Efficiency defaults per accelerator family\n")
    out.append("Achieved fractions of the dense peak (`gemm_eff_*`: training GEMMs, `serve_eff_*`: serving "
               "frameworks) and of memory bandwidth (`mem_eff`) (`efficiency_default`); links have theirs per "
               "kind of link (`link`).\n")
    out.append(_efficiency_table(queries.parameters(con, night, "efficiency")))
    out.append("## Stage factors\n")
    out.append("The share of GEMM throughput a whole step reaches, per stage (`stage_efficiency_default`).\n")
    out.append(table(queries.parameters(con, night, "stage"), {
        "subject": ("stage", None), "value": ("factor", fmt_number), "source": ("source", None)}))
    out.append("## Assumptions\n")
    out.append(table(queries.parameters(con, night, "assumption"), {
        "name": ("name", None), "value": ("value", fmt_number), "unit": ("unit", None), "source": ("source", None)}))
    out.append("## The calibration each estimate used\n")
    out.append("Per workload and accelerator (the same on every platform built from it; `calibration_choice`): "
               "level 1 is a benchmark of that workload on that GPU at that GPU count, 2-8 pool wider groups "
               "(used only where the backtest shows they help), 0 is the documented efficiencies alone.\n")
    out.append(table(queries.calibration(con, night), {
        "workload_id": ("workload", None), "gpu_id": ("GPU", None), "platforms": ("platforms", None),
        "gpu_counts": ("GPU counts", None),
        "confidence": ("confidence", None), "level": ("level", None), "basis": ("basis", None),
        "factor": ("factor", fmt_number), "points": ("points", None)}))
    out += _backtest(con, night, charts)
    out.append("## Every source\n")
    out.append("Each price reference (up to tonight), benchmark result and catalog citation, linked where it names "
               "a web address or a file of a GitHub repository at a commit.\n")
    out.append(table(queries.source_refs(con, night), {
        "input": ("input", None), "source": ("source", None), "source_ref": ("reference", source_link),
        "rows": ("rows", None), "first_date": ("from", str), "last_date": ("to", str)}))
    return "\n".join(out)


def _efficiency_table(long: pl.DataFrame) -> str:
    if long.height == 0:
        return table(long, {})
    names = sorted(long["name"].unique().to_list())
    wide = long.pivot(on="name", index=["subject", "source"], values="value").sort("subject")
    columns = {"subject": ("family", None)} | {n: (n, fmt_number) for n in names} | {"source": ("source", None)}
    return table(wide, columns)


def _backtest(con, night, charts: dict) -> list[str]:
    out = ["## Backtest (leave one accelerator out)\n"]
    if chart_set.BACKTEST_FILE in charts:
        out.append(f"{image(charts[chart_set.BACKTEST_FILE].title, chart_set.BACKTEST_FILE)}\n")
    bands = queries.error_bands(con, night)
    by_class = "class" in bands.columns
    out.append("The error band each estimate states, per workload kind"
               + (", estimate class" if by_class else "")
               + " and calibration level (" + ("`error_band_class`" if by_class else "`error_band`")
               + "; levels without a point left out):\n")
    out.append(table(bands, {
        "kind": ("workload kind", None), **({"class": ("class", None)} if by_class else {}),
        "level": ("level", None), "confidence": ("confidence", None),
        "error_p50": ("median error", fmt_pct), "error_p90": ("90th pct", fmt_pct), "points": ("points", None),
        "basis": ("basis", None)}))
    out.append("Per accelerator held out:\n")
    out.append(table(queries.backtest_by_gpu(con, night), {
        "kind": ("kind", None), "gpu_id": ("held-out GPU", None), "points": ("points", None),
        "median_ape": ("median error", fmt_pct), "p90_ape": ("90th pct", fmt_pct)}))
    out.append("Every point (predicted = the model's tokens/s per GPU x the factor learnt from the other "
               "accelerators; empty where none could be learnt):\n")
    points = queries.backtest(con, night).with_columns(
        pl.when(pl.col("loao_factor").is_not_null()).then(pl.col("loao_predicted_per_gpu")).alias("predicted"),
        pl.when(pl.col("loao_factor").is_not_null()).then(pl.col("loao_ape")).alias("error"),
    )
    out.append(table(points, {
        "workload_id": ("workload", None), "gpu_id": ("GPU", None), "gpu_count": ("GPUs", None),
        "submitter": ("submitter", None), "measured_per_gpu": ("measured/GPU", fmt_number),
        "model_per_gpu": ("model/GPU", fmt_number), "predicted": ("predicted/GPU", fmt_number),
        "error": ("error", fmt_pct), "source_ref": ("source", source_link)}))
    return out
