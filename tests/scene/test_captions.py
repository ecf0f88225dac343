"""Captions in scene files (scene/files/caption_table.py, scene/model/captions.py): [[caption]] tables and a kick's or
change's ``caption`` are checked (each mistake one message naming its key), written back and read the same, and
shown on exactly the steps their times and durations cover, a kick's and a change's from the step it lands on."""

import dataclasses

import pytest

from spinlab.scene.files.caption_table import MAX_CAPTION_CHARS, CaptionSpec
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.scene_toml import scene_to_toml
from spinlab.scene.model.captions import MAX_SHOWN, captions_at, scene_captions
from spinlab.scene.model.run_changes import CAPTION_S
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.sim.errors import InputError
from tests.scene.test_run_changes import changed_scene

CAPTIONS = """
[[caption]]
time = 0.5
duration = 1.0
text = "Watch the handle.\\nIt is about to flip."

[[caption]]
time = 0.25
duration = 2
text = "The handle"
position = "handle"

[[caption]]
time = 0
duration = 0.5
text = "Above"
position = "top"

[[kick]]
body = "handle"
time = 1.01
angular_impulse = [0.0, 0.0, 0.1]
caption = "A kick"

[[change]]
time = 2.0
gyroscopic = false
caption = "Gyroscopic term off"
"""


def test_captions_are_read_with_their_defaults(tmp_path):
    scene = changed_scene(tmp_path, CAPTIONS)
    assert scene.captions == (
        CaptionSpec(0.5, 1.0, "Watch the handle.\nIt is about to flip.", "bottom"),
        CaptionSpec(0.25, 2.0, "The handle", "handle"),
        CaptionSpec(0.0, 0.5, "Above", "top"),
    )
    assert scene.kicks[0].caption == "A kick" and scene.changes[0].caption == "Gyroscopic term off"
    assert load_scene("t_handle").captions == ()


@pytest.mark.parametrize(
    ("table", "key", "words"),
    [
        ('[[caption]]\nduration = 1\ntext = "a"', "caption[0].time", "is required"),
        ('[[caption]]\ntime = -1\nduration = 1\ntext = "a"', "caption[0].time", "at least 0"),
        ('[[caption]]\ntime = "soon"\nduration = 1\ntext = "a"', "caption[0].time", "must be a number"),
        ('[[caption]]\ntime = 1\ntext = "a"', "caption[0].duration", "is required"),
        ('[[caption]]\ntime = 1\nduration = 0\ntext = "a"', "caption[0].duration", "greater than zero"),
        ('[[caption]]\ntime = 1\nduration = nan\ntext = "a"', "caption[0].duration", "finite"),
        ("[[caption]]\ntime = 1\nduration = 1", "caption[0].text", "is required"),
        ('[[caption]]\ntime = 1\nduration = 1\ntext = "  "', "caption[0].text", "must not be empty"),
        ("[[caption]]\ntime = 1\nduration = 1\ntext = 3", "caption[0].text", "must be a string"),
        (f'[[caption]]\ntime = 1\nduration = 1\ntext = "{"a" * (MAX_CAPTION_CHARS + 1)}"', "caption[0].text",
         f"at most {MAX_CAPTION_CHARS}"),
        ('[[caption]]\ntime = 1\nduration = 1\ntext = "a\\tb"', "caption[0].text", "control characters"),
        ('[[caption]]\ntime = 1\nduration = 1\ntext = "1\\n2\\n3\\n4\\n5\\n6\\n7"', "caption[0].text", "lines"),
        ('[[caption]]\ntime = 1\nduration = 1\ntext = "a"\nposition = "hndle"', "caption[0].position",
         "did you mean 'handle'"),
        ('[[caption]]\ntime = 1\nduration = 1\ntext = "a"\nposition = 2', "caption[0].position", "must be a string"),
        ('[[caption]]\ntime = 1\nduration = 1\ntext = "a"\ncolour = "red"', "caption[0].colour", "unknown key"),
        ('[caption]\ntime = 1', "caption", "array of tables"),
        ('[[change]]\ntime = 1\ngyroscopic = false\ncaption = ""', "change[0].caption", "must not be empty"),
        ('[[kick]]\nbody = "handle"\ntime = 1\nangular_impulse = [0, 0, 1]\ncaption = 1', "kick[0].caption",
         "must be a string"),
    ],
)  # fmt: skip
def test_a_mistake_in_a_caption_names_its_key(tmp_path, table, key, words):
    with pytest.raises(InputError) as error:
        changed_scene(tmp_path, "\n" + table + "\n")
    message = str(error.value)
    assert f"key '{key}'" in message and words in message and "\n" not in message, message


def test_captions_are_written_back_and_read_the_same(tmp_path):
    scene = changed_scene(tmp_path, CAPTIONS)
    again = tmp_path / "again.toml"
    again.write_text(scene_to_toml(scene, default_integrators(scene), scene.h), encoding="utf-8")
    loaded = load_scene(again)
    assert loaded.captions == scene.captions
    assert loaded.changes == scene.changes
    assert [kick.caption for kick in loaded.kicks] == ["A kick"]


def test_each_caption_is_shown_on_the_steps_it_covers(tmp_path):
    scene = changed_scene(tmp_path, CAPTIONS)
    h = scene.h  # 1/60 s
    captions = scene_captions(scene, h)
    shown = {step: [caption.lines[0] for caption in captions.at(step)] for step in range(400)}
    assert shown[0] == ["Above"] and shown[29] == ["Above", "The handle"]
    assert shown[30] == ["The handle", "Watch the handle."]
    assert "The handle" in shown[15] and "The handle" not in shown[14] and "The handle" not in shown[135]
    assert "Watch the handle." in shown[89] and "Watch the handle." not in shown[90]
    # The kick at 1.01 s lands on step 61; the change at 2 s on step 120: each shown CAPTION_S from there.
    kick_steps = [step for step, lines in shown.items() if "A kick" in lines]
    assert kick_steps == list(range(61, 61 + round(CAPTION_S / h)))
    change_steps = [step for step, lines in shown.items() if "Gyroscopic term off" in lines]
    assert change_steps == list(range(120, 120 + round(CAPTION_S / h)))
    body = next(caption for caption in captions.captions if caption.position == "handle")
    assert body.body == 0 and body.lines == ("The handle",)
    assert captions.at(30)[1].lines == ("Watch the handle.", "It is about to flip.")


def test_a_caption_shorter_than_a_step_is_shown_on_one_and_a_pile_on_a_few(tmp_path):
    many = "".join(f'\n[[caption]]\ntime = 0.5\nduration = 1e-9\ntext = "{n}"\n' for n in range(MAX_SHOWN + 2))
    captions = scene_captions(changed_scene(tmp_path, many), 1.0 / 60.0)
    assert captions.at(29) == () and captions.at(31) == ()
    assert [caption.lines[0] for caption in captions.at(30)] == [str(n) for n in range(2, MAX_SHOWN + 2)]


def test_a_session_shows_its_captions_side_by_side_once(tmp_path):
    scene = changed_scene(tmp_path, CAPTIONS)
    session = Session(Setup(scene, default_integrators(scene), side_by_side=True, compared=("euler", "rkmk4")))
    session.step(61)
    assert [caption.lines[0] for caption in captions_at(session)] == ["The handle", "Watch the handle.", "A kick"]
    assert len(session.scene.kicks) == 2, "the kick is struck on each copy, its caption shown once"


def test_a_scene_without_captions_shows_none(tmp_path):
    scene = dataclasses.replace(changed_scene(tmp_path, CAPTIONS), captions=(), kicks=(), changes=())
    assert scene_captions(scene, scene.h).captions == () and scene_captions(scene, scene.h).at(10) == ()


def test_record_refuses_a_bad_caption_in_one_line_with_exit_2(tmp_path, capsys):
    from spinlab.commands.cli import main

    scene = tmp_path / "captioned.toml"
    bad = '\n[[caption]]\ntime = 1\nduration = -2\ntext = "a"\n'
    scene.write_text(changed_scene(tmp_path, "").path.read_text() + bad)
    assert main(["record", str(scene), "--out", str(tmp_path / "out.mp4"), "--duration", "1"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "key 'caption[0].duration'" in error and "(got -2)" in error, error
    assert not (tmp_path / "out.mp4").exists()
