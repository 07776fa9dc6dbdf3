"""`gpucalc serve --sweep` in words: per price basis one table of cost per million output tokens
and tokens/s per GPU against tokens/s per user, whose prices each column uses, and the crossover."""

from __future__ import annotations

import textwrap

from warehouse.questions.plain_text import YOUR_PRICE

NONE = "no fleet meets it"
WIDTH = 110


def render(workload: dict, rows: list[dict], crossovers: list[dict], platforms: list[str],
           bases: tuple[str, ...], rates: tuple[float, ...]) -> str:
    ttft = f"TTFT {workload['ttft_ms']:g} ms" if workload.get("ttft_ms") is not None else "no TTFT limit"
    lines = [workload["name"], f"cost and throughput against tokens/s per user (TPOT = 1000 / tokens/s per user; "
                               f"{ttft}, demand kept)"]
    for basis in bases:
        mine = [r for r in rows if r["pricing"] == basis]
        lines += ["", f"{basis}: $ per million {workload['token_unit']}, tokens/s per GPU",
                  *_table(mine, platforms, rates)]
        here = [c for c in crossovers if c["pricing"] == basis]
        said = [*_prices(mine, platforms, rates),
                *(f"at those prices: {c['text']}" for c in here if c["provider"] is None),
                *(f"at {c['provider']}'s prices, {c['platforms'][0]} against {c['platforms'][1]}: {c['text']}"
                  for c in here if c["provider"] is not None)]
        lines += [textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent="      ") for line in said]
    return "\n".join(lines)


def _table(rows: list[dict], platforms: list[str], rates: tuple[float, ...]) -> list[str]:
    cell = {(r["tokens_per_s_per_user"], r["platform_id"]): r for r in rows}
    width = max(len(NONE), *(len(p) for p in platforms))
    head = f"  {'tok/s/user':>10} {'TPOT ms':>7}" + "".join(f"  {p:>{width}}" for p in platforms)
    out = [head]
    for rate in rates:
        texts = []
        for p in platforms:
            r = cell.get((rate, p))
            texts.append(NONE if r is None else f"${r['usd_per_mtok']:,.2f} @ {r['tokens_per_s_per_gpu']:,.0f}")
        out.append(f"  {rate:>10g} {1000 / rate:>7.1f}" + "".join(f"  {t:>{width}}" for t in texts))
    return out


def _prices(rows: list[dict], platforms: list[str], rates: tuple[float, ...]) -> list[str]:
    """Each column's provider and GPU-hour, with the rates it holds at where a column mixes providers."""
    out = []
    for p in platforms:
        seen: dict[tuple, list[float]] = {}
        for r in sorted((r for r in rows if r["platform_id"] == p), key=lambda r: r["tokens_per_s_per_user"]):
            seen.setdefault((r["provider"], r["instance_type"], r["usd_per_gpu_hour"]), []).append(
                r["tokens_per_s_per_user"])
        if not seen:
            continue
        said = [f"{_seller(prov, inst)} at ${usd:,.2f} per GPU-hour" + ("" if len(seen) == 1 else
                f" ({', '.join(f'{x:g}' for x in at)} tokens/s per user)")
                for (prov, inst, usd), at in seen.items()]
        out.append(f"{p} priced at {'; '.join(said)}")
    return out


def _seller(provider: str, instance_type: str | None) -> str:
    return provider if provider == YOUR_PRICE or not instance_type else f"{provider} {instance_type}"
