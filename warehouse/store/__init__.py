"""Where the warehouse lives and how it is opened: the location setting and its backends (a DuckDB
file, DuckLake, MotherDuck), the read-only door, the write turn and session, settings and caches."""
