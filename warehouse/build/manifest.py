"""The model runner's contract, as warehouse/models/manifest.toml declares it: which models compute
the layouts, which price them on every rebuild, and which keep a night's report snapshot."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources

Model = tuple[str, str]  # (file name, SQL)


@dataclass(frozen=True)
class Manifest:
    layouts: tuple[str, ...]
    priced: tuple[str, ...]
    snapshot_tables: tuple[str, ...]
    snapshot_views: tuple[str, ...]
    held_when_small: dict[str, int]  # model file -> the most workload x platform pairs it is held at

    @property
    def snapshots(self) -> tuple[str, ...]:
        return self.snapshot_tables + self.snapshot_views

    @property
    def in_order(self) -> tuple[str, ...]:
        return self.layouts + self.priced + self.snapshots

    def check(self, models: list[Model]) -> None:
        """Refuse model files the manifest does not name, and names with no file: a model left out
        of the manifest would silently never run."""
        files, declared = [name for name, _sql in models], list(self.in_order)
        if files != declared:
            raise RuntimeError(
                f"warehouse/models/manifest.toml and the model files disagree: not declared "
                f"{sorted(set(files) - set(declared))}, no file {sorted(set(declared) - set(files))}, "
                "or not in the order the files run"
            )

    def pick(self, models: list[Model], part: tuple[str, ...]) -> list[Model]:
        """The models of one part of the manifest, in the order they run."""
        wanted = set(part)
        return [model for model in models if model[0] in wanted]


@functools.cache
def manifest() -> Manifest:
    declared = tomllib.loads(resources.files("warehouse").joinpath("models/manifest.toml").read_text())
    parts = (tuple(declared[part]) for part in ("layouts", "priced", "snapshot_tables", "snapshot_views"))
    return Manifest(*parts, held_when_small=dict(declared.get("held_when_small", {})))
