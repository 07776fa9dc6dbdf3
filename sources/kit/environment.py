"""The one module that reads gpucalc's environment variables; every other module asks it.

Read at each call, never at import: a variable set later (a test's monkeypatch, `gpucalc run`
handing a secret warehouse location to its flow through GPUCALC_WAREHOUSE) counts from the next
call on. docs/operating.md says what each variable means. It imports nothing of gpucalc's, so any
module may use it: location.py hides the secret values read here, and settings.py, which reads its
settings here too, raises location.py's errors.

Left where they are: the `os.environ.setdefault(...)` lines that configure other libraries before
they are imported (PREFECT_*, GX_ANALYTICS_ENABLED), and code that builds a child process's
environment or hands a value to one (flows/prefect_api.py, flows/cli.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable


def env(name: str, default: str | None = None) -> str | None:
    """The variable's value as set (an empty value too), else `default`."""
    return os.environ.get(name, default)


def number(name: str, default: float, convert: Callable[[str | float], float], at_least: float) -> float:
    """A numeric setting: `convert` of the variable (unset: of `default`), raised to `at_least`;
    a value `convert` cannot read is `default`, so a typo never stops a run."""
    try:
        return max(at_least, convert(os.environ.get(name, default)))
    except ValueError:
        return default
