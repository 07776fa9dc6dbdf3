"""`gpucalc bench` on more than one warehouse kind, figures side by side.

A DuckLake bench builds the scaled warehouse in a local DuckDB file first (the same
load_base / plan_scale / scale as the file bench: setup, not timed), copies its inputs into
a fresh lake in the temporary folder, then times the same `rebuild_estimates` on the lake.
So both columns measure one thing: the nightly recompute, on that kind of warehouse.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

BACKENDS = {
    "file": "DuckDB file",
    "memory": "in memory",
    "ducklake-sqlite": "DuckLake, SQLite catalog",
    "ducklake-duckdb": "DuckLake, DuckDB catalog",
}


def parse_backends(text: str) -> list[str]:
    """`file,ducklake-sqlite` -> the names, each known; an unknown one is one sentence."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in BACKENDS]
    if unknown or not names:
        raise ValueError(f"unknown backend {', '.join(unknown) or '(none)'}: choose from {', '.join(BACKENDS)}")
    return list(dict.fromkeys(names))


def lake_location(database: str, tmp: str | Path) -> tuple[str, str]:
    """The warehouse setting and data path of a throwaway lake in `tmp`."""
    folder = Path(tmp)
    catalog = "sqlite:" + str(folder / "catalog.sqlite") if database == "ducklake-sqlite" else str(
        folder / "catalog.ducklake")
    return f"ducklake:{catalog}", str(folder / "lake") + "/"


def copy_inputs(source: duckdb.DuckDBPyConnection, lake_con: duckdb.DuckDBPyConnection) -> None:
    """Every schema table of the scaled file warehouse into the lake (its model tables are rebuilt there)."""
    wanted = {r[0] for r in lake_con.execute(
        "select table_name from duckdb_tables() where database_name = current_database()").fetchall()}
    tables = [r[0] for r in source.execute(
        "select table_name from duckdb_tables() where database_name = current_database()").fetchall()]
    lake_con.execute("begin transaction")
    for table in tables:
        if table in wanted:
            lake_con.register("bench_source", source.execute(f"select * from {table}").fetch_arrow_table())
            lake_con.execute(f"delete from {table}")
            lake_con.execute(f"insert into {table} by name select * from bench_source")
            lake_con.unregister("bench_source")
    lake_con.execute("commit")


def storage_mb(tmp: str | Path) -> float:
    """Bytes the lake keeps: catalog file plus Parquet files."""
    total = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file() and "spill" not in p.parts
                and not p.name.startswith("source."))
    return round(total / 2**20, 1)


ROWS = [  # (label, figure key, format)
    ("estimate rows", "rows", "{:,}"),
    ("recompute s", "seconds", "{:.2f}"),
    ("DuckDB floor s", "floor_seconds", "{:.2f}"),
    ("recompute / floor", "floor_ratio", "{:.1f}x"),
    ("later night s", "price_night_seconds", "{:.2f}"),
    ("later night / floor", "price_night_floor_ratio", "{:.1f}x"),
    ("rows/s", "rows_per_s", "{:,}"),
    ("full scan s", "full_scan_seconds", "{:.2f}"),
    ("peak RSS MB", "recompute_peak_rss_mb", "{:,.0f}"),
    ("DuckDB peak MB", "duckdb_peak_mb", "{:,.0f}"),
    ("storage MB", "database_file_mb", "{:,.0f}"),
    ("setup s (untimed)", "setup_s", "{:.2f}"),
]


def format_side_by_side(results: dict[str, dict]) -> str:
    """One column per backend, one row per figure."""
    names = list(results)
    width = max(16, *(len(BACKENDS[n]) + 2 for n in names))
    lines = ["figure".ljust(20) + "".join(BACKENDS[n].rjust(width) for n in names)]
    for label, key, fmt in ROWS:
        cells = [fmt.format(results[n][key]) if results[n].get(key) is not None else "-" for n in names]
        lines.append(label.ljust(20) + "".join(c.rjust(width) for c in cells))
    if len(names) > 1 and all(results[n].get("seconds") for n in names):
        base = results[names[0]]["seconds"]
        lines.append("vs first".ljust(20) + "".join(f"{results[n]['seconds'] / base:.2f}x".rjust(width) for n in names))
    first = results[names[0]]
    kept = all(results[n].get("price_night_layouts_kept") for n in names)
    lines.append("(later night: every price moved 1%, the catalog and benchmarks did not; the layouts' models "
                 + ("kept their tables)" if kept else "were computed again on some backend)"))
    lines.append("(each recompute is logged as a nightly run, so it takes the report snapshot a night takes)")
    lines.append(
        f"(same synthetic warehouse: {first['workloads']} workloads x {first['platforms']} platforms, "
        f"{first['quotes']:,} quotes; threads={first['threads']} memory_limit={first['memory_limit']}, "
        f"duckdb {first['duckdb_version']})"
    )
    return "\n".join(lines)
