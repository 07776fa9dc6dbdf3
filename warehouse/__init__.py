"""DuckDB: schema, loads (stage -> validate -> merge), validation suites and models."""
