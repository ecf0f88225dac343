"""``[scene] duration``: how long a scene's story runs (the flip_story preset's 18 s), the length ``run`` and ``record``
take when the command line gives none; ``--duration`` and ``--to`` win over it; a bad one is refused like every key;
Save writes it back."""

import pytest

from spinlab.commands.cli import main
from spinlab.render.video import read_video_info
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.scene_toml import scene_to_toml
from spinlab.sim.errors import InputError

SCENE = """[scene]
{}

[[body]]
name = "handle"
shape = "t_handle"
inertia = [1.3, 1.4, 2.5]
body_angular_velocity = [0.05, 5.0, 0.05]
"""


def _scene(tmp_path, line, name="story.toml"):
    path = tmp_path / name
    path.write_text(SCENE.format(line), encoding="utf-8")
    return path


def _rows(path) -> int:
    return len(path.read_text().splitlines())


def test_run_takes_the_scenes_duration_unless_given_one(tmp_path):
    scene = _scene(tmp_path, "duration = 0.5")
    assert main(["run", str(scene), "--trace", str(tmp_path / "own.csv")]) == 0
    assert main(["run", str(scene), "--duration", "0.5", "--trace", str(tmp_path / "given.csv")]) == 0
    assert main(["run", str(scene), "--duration", "0.25", "--trace", str(tmp_path / "shorter.csv")]) == 0
    assert (tmp_path / "own.csv").read_bytes() == (tmp_path / "given.csv").read_bytes()
    assert _rows(tmp_path / "shorter.csv") < _rows(tmp_path / "own.csv")
    plain = _scene(tmp_path, "", "plain.toml")  # no duration: 10 s
    assert main(["run", str(plain), "--trace", str(tmp_path / "ten.csv")]) == 0
    assert _rows(tmp_path / "ten.csv") == 1 + 601  # a header, then t = 0 and 600 steps of 1/60 s


def test_record_takes_the_scenes_duration_unless_given_an_end(tmp_path):
    scene = _scene(tmp_path, "duration = 0.5")
    common = ["--fps", "8", "--size", "64x36"]
    assert main(["record", str(scene), "--out", str(tmp_path / "own.mp4"), *common]) == 0
    assert main(["record", str(scene), "--out", str(tmp_path / "to.mp4"), "--to", "0.25", *common]) == 0
    assert read_video_info(tmp_path / "own.mp4")[0] == 4  # 0.5 s at 8 fps
    assert read_video_info(tmp_path / "to.mp4")[0] == 2


@pytest.mark.parametrize("value", ["0.0", "-1.0", '"long"', "inf"])
def test_a_bad_duration_is_refused_naming_the_key(tmp_path, value):
    with pytest.raises(InputError) as error:
        load_scene(_scene(tmp_path, f"duration = {value}"))
    assert "scene.duration" in str(error.value)


def test_a_bad_duration_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", str(_scene(tmp_path, "duration = -2.0"))]) == 2
    err = capsys.readouterr().err
    assert "scene.duration" in err and len(err.strip().splitlines()) == 1


def test_save_writes_the_duration_back(tmp_path):
    scene = load_scene(_scene(tmp_path, "duration = 18.0"))
    saved = tmp_path / "saved.toml"
    saved.write_text(scene_to_toml(scene, (None,), scene.h), encoding="utf-8")
    assert load_scene(saved).duration == 18.0
    assert load_scene("flip_story").duration == 18.0
