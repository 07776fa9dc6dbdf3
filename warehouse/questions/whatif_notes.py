"""What a what-if answer rests on, in sentences: the job, the measurement and how much of the
hardware it used, the role pipeline's constants, each side's throughput basis and price."""

from __future__ import annotations

from warehouse.questions.whatif import SideResult
from warehouse.questions.whatif_answer import Comparison


def comparison_notes(base: SideResult, cand: SideResult) -> list[str]:
    """What the reader must know to read one comparison right."""
    notes = []
    if cand.dtype != base.dtype:
        notes.append(
            f"precision differs: the candidate runs in {cand.dtype.upper()}, the baseline was measured in "
            f"{base.dtype.upper()}; the speed and cost ratios include the change of precision (and not its "
            "effect on quality)"
        )
    return notes


def assumptions(
    con, workload: dict, base: SideResult, comparisons: list[Comparison], bases: tuple[str, ...]
) -> list[str]:
    assume = dict(con.execute("select name, value from assumption").fetchall())
    notes = [
        f"Job: {workload['total_tokens']:,.0f} {workload['token_unit'] or 'tokens'} in total "
        f"({workload['name']}); rates below count the same unit.",
        "Times are at the steady rate on both sides, as measured; the nightly estimates add "
        f"{assume.get('failed_work_overhead', 0):.0%} for failed and repeated work.",
        f"Baseline: {base.tokens_per_s:,.0f} tokens/s ({base.basis}) on {base.fleet}, layout {base.layout}.",
    ]
    if base.peak_shares:
        shares = ", ".join(f"{stage} {share:.0%}" for stage, share in base.peak_shares.items())
        notes.append(f"The measurement uses this share of the GPUs' dense peak: {shares}.")
    if base.drafter_platform_id and base.measured:
        notes.append("A baseline with drafters on another platform calibrates nothing: the candidates rest on the "
                     "model's own efficiencies.")
    if workload["kind"] == "role_pipeline":
        notes.append(
            f"Role pipeline: target forward {workload['producer_gflop_per_token']} GFLOP per target token, "
            f"{workload['transfer_bytes_per_token']:,.0f} bytes of hidden states per token moved to the drafter, "
            f"drafter training {workload['consumer_gflop_per_unit']} GFLOP per draft position and "
            f"{workload['units_per_token']} draft positions per target token (change with --units-per-token). "
            "Shared GPUs run the target and a drafter in turn: per GPU 1 / (1/target rate + 1/drafter rate), "
            "no hidden states moved."
        )
    notes.append(
        "Price basis: " + ", ".join(bases)
        + ("; each basis is priced on its own, never mixed" if len(bases) > 1 else "")
        + ". Prices come from tonight's estimates (quotes and the ownership model), or as given."
    )
    if "owned" in bases:
        notes.append(
            f"Owned: {assume.get('ownership_years', 0):g} years, {assume.get('ownership_utilization', 0):.0%} "
            f"utilisation, PUE {assume.get('pue', 0):g}, {assume.get('usd_per_kwh', 0):g} USD/kWh, colocation "
            f"{assume.get('colo_usd_per_kw_month', 0):g} USD/kW-month (--years, --utilization, --pue, "
            "--usd-per-kwh, --colo-usd-per-kw-month)."
        )
    for c in comparisons:
        notes.append(
            f"{c.candidate.label} ({c.candidate.fleet}): throughput {c.candidate.basis}; "
            f"range = the model's 90th-percentile error in the backtest; price: {c.candidate.price_note or 'none'}."
        )
    notes.append(f"Baseline price: {base.price_note or 'none'}.")
    return notes
