"""What day it is: UTC, the one clock every date check and default date reads."""

from __future__ import annotations

from datetime import UTC, date, datetime


def today() -> date:
    return datetime.now(UTC).date()
