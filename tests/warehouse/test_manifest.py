"""warehouse/models/manifest.toml is the model runner's contract: it names every model file once,
in the order they run, and a file it does not name stops the rebuild instead of never running."""

from __future__ import annotations

import pytest

from warehouse.build.manifest import manifest
from warehouse.store import db


def test_the_manifest_names_every_model_file_once_in_the_order_they_run():
    files = [name for name, _sql in db.model_files()]
    assert list(manifest().in_order) == files
    assert len(set(files)) == len(files)
    manifest().check(db.model_files())


def test_a_model_file_the_manifest_does_not_name_is_refused():
    models = db.model_files()
    with pytest.raises(RuntimeError, match=r"not declared \['066_new_model.sql'\]"):
        manifest().check([*models[:40], ("066_new_model.sql", "select 1"), *models[40:]])
    with pytest.raises(RuntimeError, match=r"no file \['010_platform_spec.sql'\]"):
        manifest().check(models[1:])


def test_each_part_picks_its_models_in_order():
    models = db.model_files()
    parts = [manifest().pick(models, part) for part in
             (manifest().layouts, manifest().priced, manifest().snapshot_tables, manifest().snapshot_views)]
    assert [model for part in parts for model in part] == models
    assert parts[0][-1][0] < parts[1][0][0]  # the layouts run before anything priced
