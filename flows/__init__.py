"""Prefect only: tasks, flows, the nightly flow and the gpucalc CLI."""
