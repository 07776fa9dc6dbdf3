"""Model commands: whatif, predict, backtest, bench."""

from __future__ import annotations

from flows.cli_app import app  # noqa: F401
