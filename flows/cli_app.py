"""The Typer app and the options every gpucalc command shares."""

from __future__ import annotations

import os
from datetime import date
from typing import Annotated

import typer

# No phoning home: this runs on machines whose only network is the package registries.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")

app = typer.Typer(
    help="gpucalc: which GPUs, from whom, in what layout, for this job, and at what cost.",
    no_args_is_help=True,
    add_completion=False,
)

DataDir = Annotated[
    str | None, typer.Option("--data-dir", help="Data directory (default $GPUCALC_DATA_DIR or ./data).")
]


def parse_date(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise typer.BadParameter(f"{value!r} is not a date in YYYY-MM-DD form") from exc


def warehouse_location(data_dir: str | None) -> str:
    from warehouse import settings

    return settings.warehouse_path(settings.data_dir(data_dir))
