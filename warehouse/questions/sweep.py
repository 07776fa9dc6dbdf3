"""The interactivity curve (issue 35, item 3): a serving job's cost per million output tokens and
tokens/s per GPU per platform, against tokens/s per user, from loose TPOT limits to tight ones.

Each sweep point is the job as one more workload row in the private copy, its TPOT limit
1000 / (tokens/s per user), so a single rebuild answers every point, each as `serve --tpot-ms`
would. The crossover says which platform is cheaper per token where, at each platform's chosen
provider, and again at every provider that prices both platforms (like_for_like.same_provider).
"""

from __future__ import annotations

import duckdb

from warehouse.questions.decide import DecideError
from warehouse.questions.like_for_like import same_provider
from warehouse.store.sql_text import sql_text

USER_RATES = (10, 20, 35, 50, 75, 100, 125, 150)  # tokens/s per user: TPOT 100 ms down to 6.7 ms


def sweep_ids(workload_id: str, rates: tuple[float, ...] = USER_RATES) -> dict[str, float]:
    """Each sweep point's workload id, with its rate."""
    return {f"{workload_id}-sweep-{rate:g}": rate for rate in rates}


def add_sweep(con: duckdb.DuckDBPyConnection, workload_id: str,
              rates: tuple[float, ...] = USER_RATES) -> dict[str, float]:
    """Copy a serving workload once per rate with TPOT 1000/rate ms (TTFT, demand and the rest kept);
    return each copy's id with its rate. Rebuild once after."""
    kind = con.execute("select kind from workload where workload_id = ?", [workload_id]).fetchone()
    if kind is None:
        raise DecideError(f"no workload {workload_id!r} (gpucalc sql \"select workload_id, name from workload\")")
    if kind[0] != "serving":
        raise DecideError(f"--sweep sweeps a serving job's TPOT, and {workload_id} is a {kind[0]} workload")
    ids = sweep_ids(workload_id, rates)
    for new_id, rate in ids.items():
        con.execute(
            """insert into workload by name
               select * replace (? as workload_id, 1000.0 / ? as tpot_ms, 'job' as purpose)
               from workload where workload_id = ?""",
            [new_id, rate, workload_id],
        )
    return ids


def points(con: duckdb.DuckDBPyConnection, ids: dict[str, float], platforms: list[str],
           bases: tuple[str, ...]) -> list[dict]:
    """Every chosen fleet of the sweep: one row per platform, basis and rate that some fleet meets."""
    rows = con.execute(sql_text("warehouse.questions", "sweep_points.sql"),
                       {"workloads": list(ids), "platforms": platforms, "bases": list(bases)}).pl().to_dicts()
    out = [{"tokens_per_s_per_user": ids[r["workload_id"]], "tpot_ms": 1000.0 / ids[r["workload_id"]], **r}
           for r in rows]
    return sorted(out, key=lambda r: (bases.index(r["pricing"]), r["tokens_per_s_per_user"],
                                      platforms.index(r["platform_id"])))


def costs_by_rate(rows, basis: str) -> dict[float, dict[str, float]]:
    """Each rate's cost per platform on `basis`, from sweep points (dicts with pricing,
    tokens_per_s_per_user, platform_id, usd_per_mtok): what `segments` reads."""
    costs: dict[float, dict[str, float]] = {}
    for r in rows:
        if r["pricing"] == basis and r["usd_per_mtok"] is not None:
            costs.setdefault(r["tokens_per_s_per_user"], {})[r["platform_id"]] = r["usd_per_mtok"]
    return costs


def segments(costs: dict[float, dict[str, float]], rates: tuple[float, ...]) -> list[dict]:
    """Consecutive rates grouped by which platform is cheapest and whether any other meets them:
    `costs` maps a rate to each platform's cost there (platforms that meet it only)."""
    out: list[dict] = []
    for rate in rates:
        there = costs.get(rate, {})
        winner = min(there, key=lambda p: (there[p], p)) if there else None
        state = "cheaper" if len(there) > 1 else "only" if there else "none"
        if out and out[-1]["platform_id"] == winner and out[-1]["state"] == state:
            out[-1]["to"] = rate
        else:
            out.append({"platform_id": winner, "state": state, "from": rate, "to": rate})
    return out


def segment_text(parts: list[dict], rates: tuple[float, ...]) -> str:
    """The segments in words: "hgx-b200-8 is cheaper per token at 10-35 tokens/s per user; ..."."""
    if len(parts) == 1 and parts[0]["state"] == "cheaper":
        return f"{parts[0]['platform_id']} is cheaper per token at every point swept ({_span(rates[0], rates[-1])})"
    if len(parts) == 2 and all(part["state"] == "cheaper" for part in parts):
        low, high = parts
        return (f"{high['platform_id']} is cheaper per token above {low['to']:g} tokens/s per user "
                f"({low['platform_id']} at {low['to']:g} and below)")
    said = []
    for part in parts:
        span = _span(part["from"], part["to"])
        said.append(f"{part['platform_id']} is cheaper per token at {span}" if part["state"] == "cheaper"
                    else f"only {part['platform_id']} meets {span}" if part["state"] == "only"
                    else f"no fleet meets {span}")
    return "; ".join(said)


def _span(low: float, high: float) -> str:
    return f"{low:g} tokens/s per user" if low == high else f"{low:g}-{high:g} tokens/s per user"


def crossovers(con: duckdb.DuckDBPyConnection, ids: dict[str, float], rows: list[dict], platforms: list[str],
               bases: tuple[str, ...]) -> list[dict]:
    """Per basis, who is cheaper where at each platform's chosen prices; with two platforms or more,
    the first against each other also at every provider that prices both."""
    rates = tuple(sorted(ids.values()))
    out = []
    for basis in bases:
        parts = segments(costs_by_rate(rows, basis), rates)
        out.append({"pricing": basis, "prices": "each platform's chosen provider", "provider": None,
                    "segments": parts, "text": segment_text(parts, rates)})
    if len(platforms) < 2:
        return out
    market = tuple(b for b in bases if b != "owned")  # owning is a cost model, not a market
    paired: dict[tuple[str, str, str], dict[float, dict[str, float]]] = {}
    for workload_id, rate in ids.items():
        for other in platforms[1:]:
            for pair in same_provider(con, workload_id, platforms[0], other, market):
                there = paired.setdefault((pair["pricing"], pair["provider"], other), {}).setdefault(rate, {})
                for side in ("a", "b"):
                    if pair[f"{side}_usd_per_unit"] is not None:
                        there[pair[side]] = pair[f"{side}_usd_per_unit"]
    for (basis, provider, other), costs in sorted(paired.items(), key=lambda kv: (bases.index(kv[0][0]), kv[0][1:])):
        parts = segments(costs, rates)
        out.append({"pricing": basis, "prices": f"{provider}'s", "provider": provider,
                    "platforms": [platforms[0], other], "segments": parts, "text": segment_text(parts, rates)})
    return out


def platforms_meeting(con: duckdb.DuckDBPyConnection, ids: dict[str, float]) -> list[str]:
    """Every platform that meets some point of the sweep, in id order."""
    return [r[0] for r in con.execute("select distinct platform_id from platform_choice "
                                      "where list_contains(?, workload_id) order by 1", [list(ids)]).fetchall()]
