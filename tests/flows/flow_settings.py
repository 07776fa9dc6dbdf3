"""Flows on the test run's Prefect server, set up as `gpucalc run` sets up the server it starts itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def flows_as_gpucalc_runs_them() -> Iterator[None]:
    """No flow-run heartbeats and no logs shipped to the server while inside, the settings `gpucalc
    run` gives its own temporary server (flows/prefect_api.py): no test reads either, and each flow
    otherwise waits for its heartbeat thread's sleep to end as it finishes."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

    with temporary_settings(updates={PREFECT_LOGGING_TO_API_ENABLED: False, PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield
