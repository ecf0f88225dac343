"""Files the window writes: default names, scene files (loaded back). PNG and atomic writes are tested with their
modules, tests/scene/test_png.py and tests/scene/test_atomic_file.py."""

import numpy as np
import pytest

from spinlab.scene.files.scene_file import list_presets, load_scene
from spinlab.scene.files.scene_toml import save_scene
from spinlab.scene.model.run_model import default_integrators
from spinlab.sim.errors import InputError
from spinlab.ui.files import timestamped_path


def test_a_default_name_never_reuses_a_file(tmp_path):
    first = timestamped_path(tmp_path, "x", ".png")
    assert first.parent == tmp_path and first.name.startswith("spinlab-x-") and first.suffix == ".png"
    first.write_bytes(b"")
    second = timestamped_path(tmp_path, "x", ".png")
    assert second != first and not second.exists()  # "-2" added, or a later second


@pytest.mark.parametrize("preset", list_presets())
def test_every_preset_saves_and_loads_back_exactly(tmp_path, preset):
    scene = load_scene(preset)
    integrators = default_integrators(scene)
    path = save_scene(tmp_path / f"{preset}.toml", scene, integrators, scene.h)
    loaded = load_scene(path)
    assert loaded.h == scene.h and np.array_equal(loaded.gravity, scene.gravity)
    for original, copy, integrator in zip(scene.bodies, loaded.bodies, integrators, strict=True):
        assert (copy.name, copy.shape, copy.parent, copy.kinematic) == (
            original.name, original.shape, original.parent, original.kinematic
        )  # fmt: skip
        assert copy.integrator == integrator
        for field in ("inertia_body", "position", "orientation", "omega_parent", "com_offset"):
            assert np.array_equal(getattr(copy, field), getattr(original, field)), field


def test_a_scene_file_must_end_in_toml(tmp_path):
    scene = load_scene("t_handle")
    with pytest.raises(InputError, match=".toml"):
        save_scene(tmp_path / "scene.txt", scene, default_integrators(scene), scene.h)
