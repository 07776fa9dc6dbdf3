"""Like-for-like prices in words: a platform's market on one basis (`gpucalc prices`, `compare`),
and two platforms at the same provider (`compare --platforms a,b`)."""

from __future__ import annotations

import textwrap

from warehouse.questions.plain_text import YOUR_PRICE, fmt_count, fmt_usd

WIDTH = 110


def thin(row: dict) -> str | None:
    """What a market rests on when it is no market, or None: a single quote, or one provider."""
    if not row["quotes"]:
        return None
    if row["single_quote"] and row["cheapest_provider"] == YOUR_PRICE:
        return "a single quote (your own price)"
    if row["single_quote"]:
        kind = "list price" if row["single_quote_statistic"] == "list" else f"{row['single_quote_statistic']} price"
        return f"a single quote ({row['cheapest_provider']}'s {kind})"
    if row["single_provider"]:
        return f"one provider's quotes ({row['cheapest_provider']})"
    return None


def market_line(row: dict) -> str:
    """A market in words: cheapest to dearest GPU-hour and who quotes them, the median, the spread,
    how many quotes and providers, what it rests on when that is thin, and the stale quotes left out."""
    stale = (f"; {fmt_count(row['stale_quotes'], 'stale quote')} left out ({row['stale_providers']})"
             if row["stale_quotes"] else "")
    if not row["quotes"]:
        return f"no fresh quote{stale}"
    if row["single_quote"]:
        return f"{fmt_usd(row['cheapest_usd_per_gpu_hour'])}, {thin(row)}{stale}"
    said = (f"{fmt_usd(row['cheapest_usd_per_gpu_hour'])} ({row['cheapest_provider']}) to "
            f"{fmt_usd(row['max_usd_per_gpu_hour'])} ({row['dearest_provider']}), median "
            f"{fmt_usd(row['median_usd_per_gpu_hour'])}: {row['spread']:.2f}x spread, "
            f"{fmt_count(row['quotes'], 'quote')}, {fmt_count(row['providers'], 'provider')}")
    return said + (f", {thin(row)}" if thin(row) else "") + stale


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, width=WIDTH, initial_indent=indent, subsequent_indent=indent + "    ")


def _pair(pair: dict, unit: str) -> str:
    said = (f"{pair['pricing']}, {pair['provider']}: {fmt_usd(pair['a_usd_per_gpu_hour'])} against "
            f"{fmt_usd(pair['b_usd_per_gpu_hour'])} per GPU-hour ({pair['price_ratio']:.2f}x)")
    if pair["cost_ratio"] is not None:
        said += (f", {fmt_usd(pair['a_usd_per_unit'])} against {fmt_usd(pair['b_usd_per_unit'])} {unit} "
                 f"({pair['cost_ratio']:.2f}x)")
    return said


def _gap(gap: dict, pairs: list[dict]) -> str:
    at_one = ", ".join(f"{p['cost_ratio'] if p['cost_ratio'] is not None else p['price_ratio']:.2f}x at "
                       f"{p['provider']}" for p in pairs)
    return (f"{gap['pricing']}: the cheapest rows above are {gap['cost_ratio']:.2f}x apart ({gap['a_provider']} "
            f"against {gap['b_provider']}) but {at_one}: that difference is the providers' prices, not the platforms")


def like_for_like_lines(found: dict, workload: dict) -> list[str]:
    """What `compare --platforms` prints below the choices: each platform's market per basis, then the
    first platform against each other at every provider that prices both, beside the cheapest rows'
    gap, and plainly which side's price is a single quote or one provider's."""
    markets = found["markets"]
    if not markets:
        return []
    bases = list(dict.fromkeys(m["pricing"] for m in markets))
    by_key = {(m["platform_id"], m["pricing"]): m for m in markets}
    unit = (f"per million {workload.get('token_unit') or 'tokens'}" if workload["kind"] == "serving"
            else "for the job")
    out = ["", "Like for like, per GPU-hour on tonight's fresh quotes:"]
    out += [line for m in markets for line in _wrap(f"{m['pricing']}, {m['platform_id']}: {market_line(m)}")]
    a = found["platforms"][0]
    for b in found["platforms"][1:]:
        out.append(f"Same provider, {a} against {b}:")
        gaps = {g["pricing"]: g for g in found["cheapest_gap"] if g["b"] == b}
        for basis in bases:
            pairs = [p for p in found["same_provider"] if p["b"] == b and p["pricing"] == basis]
            out += [line for p in pairs for line in _wrap(_pair(p, unit))]
            if not pairs:
                out += _wrap(f"{basis}: no provider prices both tonight")
            elif basis in gaps and gaps[basis]["a_provider"] != gaps[basis]["b_provider"]:
                out += _wrap(_gap(gaps[basis], pairs))
        for basis in bases:
            rests = [f"{p} on {basis} rests on {thin(by_key[(p, basis)])}" for p in (a, b)
                     if (p, basis) in by_key and thin(by_key[(p, basis)])]
            out += _wrap(f"Careful: {'; '.join(rests)}, not a market.", indent="") if rests else []
    return out
