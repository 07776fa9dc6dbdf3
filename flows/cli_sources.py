"""Source commands: ingest a local payload, replay a day, list the sources."""

from __future__ import annotations

from flows.cli_app import app  # noqa: F401
