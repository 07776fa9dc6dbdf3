"""A choice's fleet as the answers print it: in words for the terminal, and in JSON with every
count named for what it counts, so both describe the same GPUs.

A serving estimate is modelled at one GPU count (`n_gpus`, e.g. 64 GB200s holding four 16-GPU
replicas) and then sized to the demand in whole replicas (`fleet_gpus`); the JSON says the fleet.
"""

from __future__ import annotations

import duckdb

from warehouse.questions.fleet_words import fleet_words, gpu_words, system_words


def platform_shapes(con: duckdb.DuckDBPyConnection, platform_ids: list[str]) -> dict[str, dict]:
    """What fleet_words needs of each platform: its system's name, GPUs per system and scale-up domain."""
    rows = con.execute(
        "select platform_id, name, gpus_per_node, scaleup_domain_gpus from platform_spec "
        "where list_contains(?, platform_id)", [sorted(set(platform_ids))]).fetchall()
    return {p: shape(name, node, domain) for p, name, node, domain in rows}


def shape(platform_name: str, gpus_per_node: int, scaleup_domain_gpus: int | None) -> dict:
    """One platform's shape as fleet_text reads it."""
    return {"system": system_words(platform_name), "gpus_per_node": gpus_per_node,
            "domain_gpus": scaleup_domain_gpus or 1}


def fleet_gpus(row: dict) -> int:
    """The GPUs the row's fleet runs on (the modelled count where the row was not sized to a demand)."""
    return int(row["fleet_gpus"] if row.get("fleet_gpus") is not None else row["n_gpus"])


def fleet_text(row: dict, shapes: dict[str, dict], gpus: int | None = None) -> str:
    """The row's fleet in words ("16 GPUs (4 trays of one GB200 NVL72 rack)"); the platform id
    where the catalog keeps no shape of it."""
    gpus = fleet_gpus(row) if gpus is None else gpus
    shape = shapes.get(row["platform_id"])
    if shape is None or not shape["gpus_per_node"]:
        return f"{gpus}x {row['platform_id']}"
    unit = row.get("gpus_per_instance")
    return fleet_words(gpus, gpu_words(row["gpu_id"]), shape["system"], shape["gpus_per_node"],
                       shape["domain_gpus"], int(unit) if unit else None)


def fleet_json(row: dict, shapes: dict[str, dict]) -> dict:
    """A choice for `--json`: `n_gpus` is the fleet's GPU count, the modelled deployment is named
    as such, and the fleet's capacity is the modelled rate scaled to the fleet's serving GPUs."""
    if row.get("platform_id") is None or row.get("n_gpus") is None:
        return dict(row)  # a managed API or a row with no fleet: nothing to restate
    out = {k: v for k, v in row.items() if k not in ("n_gpus", "nodes", "unit_gpus", "deployments", "tokens_per_s",
                                                     "tokens_per_s_per_gpu")}
    modelled, rate = row["n_gpus"], row.get("tokens_per_s")
    replicas, per_replica = row.get("deployments"), row.get("unit_gpus")
    serving_gpus = replicas * per_replica if replicas and per_replica else modelled
    out.update({
        "fleet": fleet_text(row, shapes),
        "n_gpus": fleet_gpus(row),
        "replicas": replicas,
        "gpus_per_replica": per_replica,
        "tokens_per_s": rate * serving_gpus / modelled if rate is not None else None,
        "tokens_per_s_per_gpu": rate / modelled if rate is not None else None,
        "modelled_gpus": modelled,
        "modelled_nodes": row.get("nodes"),
        "modelled_tokens_per_s": rate,
    })
    return out
