"""Camera keys in scene files (scene/files/camera_table.py): read as written, every mistake refused in one line naming
the file, the key (``camera[1].fov``) and the value (exit 2 on the command line), and written back by Save to read
the same."""

import subprocess
import sys

import pytest

from spinlab.scene.files.camera_table import CameraKey
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.scene_toml import save_scene
from spinlab.sim.errors import InputError
from tests.scene.test_kicks import FREE

KEYS = """
[[camera]]
time = 0.0
azimuth = -30
fov = 45.0

[[camera]]
time = 1.5
distance = 2.5
target = "handle"
elevation = 40

[[camera]]
time = 3
azimuth = 700.0
target = [0.5, -1.0, 2.0]
"""


def _scene(tmp_path, text, name="scene.toml"):
    path = tmp_path / name
    path.write_text(FREE + text, encoding="utf-8")
    return load_scene(path)


def test_camera_keys_are_read_as_written(tmp_path):
    assert _scene(tmp_path, KEYS).camera == (
        CameraKey(0.0, azimuth=-30.0, fov=45.0),
        CameraKey(1.5, elevation=40.0, distance=2.5, target="handle"),
        CameraKey(3.0, azimuth=700.0, target=(0.5, -1.0, 2.0)),
    )
    assert _scene(tmp_path, "\n[[camera]]\ntime = 2\n").camera == (CameraKey(2.0),)  # a key that holds every value


@pytest.mark.parametrize(
    ("text", "key", "words", "value"),
    [
        ("azimuth = 10", "camera[1].time", "is required", None),
        ("time = -0.5", "camera[1].time", "at least 0 s", "-0.5"),
        ("time = 0.5", "camera[1].time", "must come after camera[0].time (1 s)", "0.5"),
        ("time = 1.0", "camera[1].time", "must come after camera[0].time", "1.0"),
        ('time = "soon"', "camera[1].time", "must be a number", "soon"),
        ("time = 2\nazimuth = nan", "camera[1].azimuth", "finite", "nan"),
        ("time = 2\nazimuth = 4000", "camera[1].azimuth", "[-3600, 3600] degrees", "4000"),
        ("time = 2\nelevation = 90", "camera[1].elevation", "[-89, 89] degrees", "90"),
        ("time = 2\nelevation = true", "camera[1].elevation", "must be a number, not a boolean", "True"),
        ("time = 2\ndistance = 0", "camera[1].distance", "greater than zero", "0"),
        ("time = 2\ndistance = -3.0", "camera[1].distance", "greater than zero", "-3.0"),
        ("time = 2\nfov = 2", "camera[1].fov", "[5, 120] degrees", "2"),
        ("time = 2\nfov = 179.0", "camera[1].fov", "[5, 120] degrees", "179.0"),
        ('time = 2\ntarget = "handel"', "camera[1].target", "unknown body (bodies: handle); did you mean 'handle'?",
         "handel"),
        ("time = 2\ntarget = [1, 2]", "camera[1].target", "must have 3 numbers", "[1, 2]"),
        ("time = 2\ntarget = [1, 2, inf]", "camera[1].target", "finite", None),
        ("time = 2\ntarget = 3", "camera[1].target", "a body's name or a point [x, y, z]", "3"),
        ("time = 2\nzoom = 2", "camera[1].zoom", "unknown key", "2"),
        ("time = 2\nfield_of_view = 30", "camera[1].field_of_view", "unknown key", None),
    ],
)  # fmt: skip
def test_a_mistake_in_a_camera_key_is_refused_naming_the_file_key_and_value(tmp_path, text, key, words, value):
    with pytest.raises(InputError) as error:
        _scene(tmp_path, "\n[[camera]]\ntime = 1\n\n[[camera]]\n" + text + "\n")
    message = str(error.value)
    assert "scene.toml" in message and key in message and words in message, message
    assert value is None or value in message, message
    assert "\n" not in message


def test_camera_written_otherwise_is_refused(tmp_path):
    with pytest.raises(InputError, match="key 'camera': must be an array of tables"):
        _scene(tmp_path, "\n[camera]\ntime = 1\n")


def test_a_bad_camera_key_is_one_line_and_exit_2_on_the_command_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(FREE + "\n[[camera]]\ntime = 1\nfov = 500\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "main.py", "run", str(path), "--duration", "0.1"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "bad.toml" in result.stderr and "camera[0].fov" in result.stderr and "500" in result.stderr


def test_saved_camera_keys_load_back_the_same(tmp_path):
    scene = _scene(tmp_path, KEYS)
    saved = save_scene(tmp_path / "saved.toml", scene, (None,), scene.h)
    assert load_scene(saved).camera == scene.camera
    assert "[[camera]]" in saved.read_text(encoding="utf-8")
