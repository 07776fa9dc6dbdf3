"""Extract and normalise: one module per provider or benchmark suite (no Prefect, no DuckDB)."""
