"""Files the window writes: PNG (decoded back with PyAV), scene files (loaded back), atomic writes."""

import av
import numpy as np
import pytest

from scene.scene_file import list_presets, load_scene
from scene.scene_toml import save_scene
from sim.errors import InputError
from ui.files import encode_png, save_png, timestamped_path, write_atomically
from ui.session import default_integrators


def test_png_decodes_to_the_same_pixels(tmp_path):
    image = np.random.default_rng(3).integers(0, 256, size=(37, 53, 3), dtype=np.uint8)
    path = save_png(tmp_path / "shot.png", image)
    with av.open(str(path)) as container:
        decoded = next(container.decode(video=0)).to_ndarray(format="rgb24")
    assert np.array_equal(decoded, image)
    with pytest.raises(ValueError):
        encode_png(image[..., :2])


def test_atomic_writes_leave_no_temporary_files_and_name_bad_places(tmp_path):
    write_atomically(tmp_path / "a.txt", b"one")
    write_atomically(tmp_path / "a.txt", b"two")
    assert (tmp_path / "a.txt").read_bytes() == b"two" and len(list(tmp_path.iterdir())) == 1
    with pytest.raises(InputError, match="does not exist"):
        write_atomically(tmp_path / "missing" / "a.txt", b"")
    first = timestamped_path(tmp_path, "x", ".png")
    first.write_bytes(b"")
    assert timestamped_path(tmp_path, "x", ".png") != first


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
        for field in ("inertia_body", "position", "orientation", "omega_world", "com_offset"):
            assert np.array_equal(getattr(copy, field), getattr(original, field)), field


def test_a_scene_file_must_end_in_toml(tmp_path):
    scene = load_scene("t_handle")
    with pytest.raises(InputError, match=".toml"):
        save_scene(tmp_path / "scene.txt", scene, default_integrators(scene), scene.h)
