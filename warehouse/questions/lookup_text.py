"""What `gpucalc list` and `gpucalc prices` print: each row in words, and the tables' columns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from warehouse.questions.market_text import market_line
from warehouse.questions.plain_text import fmt_usd


def _tokens(value: float | None) -> str:
    if value is None:
        return ""
    for size, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.3g}"


def _ms(value: float | None) -> str:
    return f"{value / 1000:g} s" if value >= 1000 else f"{value:g} ms"


def workload_what(row: dict) -> str:
    """A serving job's scenario and limits, a training job's tokens and epochs."""
    if row["kind"] == "serving":
        limits = [f"TTFT {_ms(row['ttft_ms'])}" if row.get("ttft_ms") else "",
                  f"TPOT {_ms(row['tpot_ms'])}" if row.get("tpot_ms") else ""]
        said = [f"{row.get('scenario') or 'serving'}" + (f" ({', '.join(x for x in limits if x)})"
                                                          if any(limits) else ", no latency limit")]
        if row.get("input_len") is not None and row.get("output_len") is not None:
            said.append(f"{row['input_len']:,.0f} in / {row['output_len']:,.0f} out tokens")
        if row.get("demand_tokens_per_s"):
            said.append(f"at {row['demand_tokens_per_s']:,.0f} {row.get('token_unit') or 'tokens'}/s")
        else:
            said.append(f"{_tokens(row['total_tokens'])} tokens in all")
    else:
        said = [f"{_tokens(row['total_tokens'])} tokens" + (f" x {row['epochs']:g} epochs" if row.get("epochs")
                                                             else "")]
    if row.get("consumer_model_id"):
        said.append(f"drafter {row['consumer_model_id']}")
    return ", ".join(said)


def platform_what(row: dict) -> str:
    """GPUs per system, the scale-up domain, and how it is sold."""
    domain = row["scaleup_domain_gpus"]
    kind = row["scaleup_kind"] or "none"
    scaleup = "no scale-up link" if kind == "none" else f"scale-up {domain} GPUs over {kind}"
    per = "system" if row["sold_by"] == "not sold" else row["sold_by"]
    sold = ("not sold (cloud only)" if row["sold_by"] == "not sold"
            else f"sold by the {row['sold_by']}, {fmt_usd(row['capex_usd_per_node'])}")
    return f"{row['gpus_per_node']} x {row['gpu_id']} per {per}, {scaleup}, {sold}"


def gpu_what(row: dict) -> str:
    """Memory and the dense peaks."""
    peaks = [f"{_peak(row[c])} {label}" for c, label in
             (("bf16_tflops", "BF16"), ("fp8_tflops", "FP8"), ("fp4_tflops", "FP4")) if row.get(c)]
    memory = f"{row['memory_gb']:g} GB {row['memory_type'] or ''}".strip()
    return f"{memory}; dense TFLOPS {', '.join(peaks) or 'unknown'}"


def _peak(tflops: float) -> str:
    return f"{tflops:,.0f}" if tflops >= 100 else f"{tflops:.3g}"


def model_what(row: dict) -> str:
    """Dense or a mixture of experts, the layers, the attention."""
    experts = row.get("experts") or 0
    shape = (f"MoE, {experts} experts ({row['experts_active']} active)" if experts > 1 else "dense")
    said = [shape, f"{row['layers']} layer{'s' if row['layers'] != 1 else ''}"]
    if row.get("attn_layers") and row["attn_layers"] < row["layers"]:
        said.append(f"{row['attn_layers']} of them full attention (the rest linear)")
    q, kv = row.get("q_heads"), row.get("kv_heads")
    if q and kv:
        said.append("multi-head attention" if q == kv else f"{kv} KV heads for {q} query heads")
    return ", ".join(said)


def _billions(value: float | None) -> str:
    return "" if value is None else f"{value:,.3g} B" if value < 1000 else f"{value:,.0f} B"


def _sold(row: dict) -> str:
    if row["sold_by"] == "not sold":
        return "not sold"
    return f"{row['sold_by']}, {fmt_usd(row['capex_usd_per_node'])}"


def _scaleup(row: dict) -> str:
    kind = row["scaleup_kind"] or "none"
    return "none" if kind == "none" else f"{row['scaleup_domain_gpus']} GPUs, {kind}"


def _tf(value: float | None) -> str:
    return "" if value is None else _peak(value)


def _usd(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.3f}" if value < 1 else f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


@dataclass(frozen=True)
class Column:
    """A column of a look-up table: its header and cell; free text wraps at its spaces (ids, bases
    and dates do not); `drop` orders the columns a narrow terminal leaves out (1 first; 0 never)."""

    header: str
    cell: Callable[[dict], str]
    right: bool = False
    wraps: bool = True
    drop: int = 0


# What `gpucalc list` and `gpucalc prices` print, per kind; --json prints the rows themselves.
COLUMNS = {
    "workloads": [
        Column("id", lambda r: r["workload_id"], wraps=False),
        Column("kind", lambda r: r["kind"]),
        Column("model", lambda r: r["model_id"], drop=2),
        Column("what it is", workload_what),
        Column("name", lambda r: r["name"], drop=1),
    ],
    "platforms": [
        Column("id", lambda r: r["platform_id"], wraps=False),
        Column("GPU", lambda r: r["gpu_id"]),
        Column("GPUs per system", lambda r: f"{r['gpus_per_node']:,}", right=True),
        Column("scale-up domain", _scaleup),
        Column("sold by", _sold, drop=2),
        Column("name", lambda r: r["name"], drop=1),
    ],
    "gpus": [
        Column("id", lambda r: r["gpu_id"], wraps=False),
        Column("vendor", lambda r: r["vendor"], drop=3),
        Column("memory", lambda r: f"{r['memory_gb']:g} GB {r['memory_type'] or ''}".strip()),
        Column("BF16 dense TFLOPS", lambda r: _tf(r["bf16_tflops"]), right=True),
        Column("FP8 dense TFLOPS", lambda r: _tf(r["fp8_tflops"]), right=True),
        Column("platforms", lambda r: r["platforms"], drop=2),
        Column("name", lambda r: r["name"], drop=1),
    ],
    "models": [
        Column("id", lambda r: r["model_id"], wraps=False),
        Column("params", lambda r: _billions(r["params_total_b"]), right=True),
        Column("active", lambda r: _billions(r["params_active_b"]), right=True, drop=2),
        Column("architecture", model_what),
        Column("name", lambda r: r["name"], drop=1),
    ],
    "prices": [
        Column("provider", lambda r: r["provider"], wraps=False),
        Column("instance type", lambda r: r["instance_type"]),
        Column("GPUs", lambda r: f"{r['gpus_per_instance']:g}", right=True),
        Column("$/GPU-h", lambda r: _usd(r["usd_per_gpu_hour"]), right=True),
        Column("$/instance-h", lambda r: _usd(r["usd_per_instance_hour"]), right=True, drop=1),
        Column("basis", lambda r: r["basis"], wraps=False),
        Column("region", lambda r: r["region"] or "", drop=3),
        Column("observed", lambda r: str(r["observed_at"]), wraps=False, drop=2),
        Column("age (d)", lambda r: "" if r["age_days"] is None else str(r["age_days"]), right=True),
        Column("source", lambda r: r["origin"]),
    ],
}


def prices_title(gpu_id: str, gpu_name: str, rows: list[dict], night_of: date | None, bases: tuple[str, ...]) -> str:
    """The line above the prices: which accelerator, which night, how many quotes on which bases."""
    on = "every basis" if len(bases) > 1 else bases[0]
    when = f"the night of {night_of}" if night_of else "the warehouse's night"
    which = gpu_name if gpu_name.startswith(gpu_id) else f"{gpu_id} ({gpu_name})"
    if not rows:
        return f"no quote for {which} on {'any basis' if len(bases) > 1 else bases[0]} as of {when}"
    stale = sum(1 for r in rows if r.get("stale"))
    said = (f"; {stale} stale (observed before the freshness window: listed last, ranked nowhere)"
            if stale else "")
    # a bundled snapshot is the market of its own day: its quotes' freshness counts from that day
    snapshot_days = sorted({r["judged_on"] for r in rows if r.get("origin") == "bundled snapshot"
                            and r.get("judged_on") and r["judged_on"] != night_of})
    if snapshot_days:
        said += f"; the bundled snapshot's quotes are judged as of its date, {snapshot_days[0]}"
    return (f"{which}: {len(rows)} quote{'s' if len(rows) != 1 else ''} on {on} as of {when}, "
            f"cheapest per GPU-hour first{said}")


def market_lines(markets: list[dict]) -> list[str]:
    """The market line of each basis, above the quotes: what they say together."""
    return [f"market, {m['pricing']}: {market_line(m)}" for m in markets]
