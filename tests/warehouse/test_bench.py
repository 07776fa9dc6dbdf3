"""`gpucalc bench`: a synthetic warehouse scaled to about N estimate rows, recomputed for real.

Each builds and recomputes warehouses several times the bundled one's size: `make test-slow`.
"""

import json
import os

import pytest
from typer.testing import CliRunner

from flows.cli import app
from warehouse.bench import run_bench


@pytest.mark.slow
def test_bench_produces_about_the_rows_asked_for_and_reports_rates(tmp_path, monkeypatch):
    users_cache = tmp_path.parent / f"{tmp_path.name}-cache"
    monkeypatch.setenv("GPUCALC_CACHE_DIR", str(users_cache))
    figures = run_bench(20_000, workdir=tmp_path)
    # layouts neither copied from nor kept in the user's cache: another bench of the same N
    # would copy them back instead of computing them
    assert not users_cache.exists() and os.environ["GPUCALC_CACHE_DIR"] == str(users_cache)
    assert isinstance(figures, dict)
    assert figures["rows"] == figures["counts"]["estimate"]
    # the count is predicted from a recompute of the unscaled warehouse, quote by quote
    assert abs(figures["rows"] - 20_000) <= 0.05 * 20_000
    assert figures["rows"] == figures["predicted_rows"]
    assert figures["rows"] > figures["base_rows"]
    assert figures["seconds"] > 0
    assert figures["rows_per_s"] > 0
    # a later night where only prices moved keeps the layouts' tables and recomputes the rest
    assert figures["price_night_layouts_kept"] is True and figures["price_night_seconds"] > 0
    assert figures["price_night_floor_ratio"] == round(figures["price_night_seconds"] / figures["floor_seconds"], 1)
    assert figures["peak_rss_mb"] > 0
    assert figures["threads"] >= 1
    assert figures["memory_limit"]
    assert list(tmp_path.iterdir()) == []  # the temporary warehouse is gone


@pytest.mark.slow
def test_bench_command_multiplies_platforms_and_workloads_and_applies_settings(tmp_path):
    # 4 copies of the ~1,400 rows no quote choice removes (owned systems) are ~5,600 already
    args = "bench --estimates 8000 --platform-copies 2 --workload-copies 2 --threads 1 --memory-limit 1GB"
    result = CliRunner().invoke(app, [*args.split(), "--in-memory", "--workdir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["platform_copies"] == 2 and figures["workload_copies"] == 2
    assert figures["threads"] == 1
    assert figures["database"] == "memory"
    assert abs(figures["rows"] - 8000) <= 0.05 * 8000
    assert figures["rows_per_s"] > 0


def test_the_recompute_the_bench_times_checkpoints_as_a_night_does(tmp_path, monkeypatch):
    """DuckDB does not checkpoint at a commit while another connection's result is still
    unread. The memory sampler once left its every result so, and the timed recompute's commit
    then wrote only the WAL: its checkpoint (~0.9 s at 10M rows), which a nightly run pays,
    was left out of the bench's figure. A commit over a low checkpoint threshold must leave
    no WAL behind."""
    from warehouse import bench
    from warehouse.bench.scale import load_base

    monkeypatch.setenv("GPUCALC_CACHE_DIR", "off")
    path = tmp_path / "w.duckdb"
    con = bench._connect(str(path), tmp_path, None, None, None)
    try:
        load_base(con)
        con.execute("checkpoint")
        con.execute("set wal_autocheckpoint = '1KB'")  # the bundled rebuild is large enough
        figures = bench._measure_rebuild(con)
        wal = path.with_name(path.name + ".wal")
        assert figures["rows"] > 0
        assert not wal.exists() or wal.stat().st_size == 0
    finally:
        con.close()
