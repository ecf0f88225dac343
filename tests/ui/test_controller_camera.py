"""Camera keys through the window-free controller (tests/ui/headless_host.py): the scene's keys are played, the
cameras at each key's time are the key (read from the controller's timeline, a body target where the body is),
the panel's toggle stops and starts them, a person's hold lasts until the next key, another scene brings its own
keys, and Save writes them back."""

import dataclasses

import numpy as np

from spinlab.scene.files.camera_table import CameraKey
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.camera_path import CameraState
from spinlab.ui.controller_state import PanelEdits
from tests.ui.test_controller_changes import controller_on

KEYS = (
    CameraKey(0.0, azimuth=0.0, elevation=10.0, distance=3.0, target=(0.0, 0.0, 0.0), fov=40.0),
    CameraKey(0.5, azimuth=90.0, target="handle"),
    CameraKey(1.0, elevation=45.0, distance=5.0, fov=25.0),
)
FRAMED = CameraState(-60.0, 22.0, 4.0, np.zeros(3), 35.0)  # a view's own framing (never used: keys give all)


def scene_with_keys():
    return dataclasses.replace(load_scene("t_handle"), camera=KEYS)


def cameras_now(controller):
    """The cameras the controller's keys give at the step shown, the body target where the body is then."""
    shown = controller.timeline.shown
    position = shown.snapshot.position
    state = controller.choices.camera.path.at(shown.t, FRAMED, lambda name: position[0])
    return (state.azimuth, state.elevation, state.distance, state.fov, *state.target.tolist())


def test_the_cameras_at_each_key_time_are_the_key(tmp_path):
    controller, _ = controller_on(scene_with_keys(), tmp_path)
    director = controller.choices.camera
    assert director.path.keys == KEYS and director.steers(0.0)
    expected = {0.0: (0.0, 10.0, 3.0, 40.0), 0.5: (90.0, 10.0, 3.0, 40.0), 1.0: (90.0, 45.0, 5.0, 25.0)}
    for key in KEYS:
        steps = round(key.time / controller.timeline.session.h) - controller.timeline.shown_step
        controller.step(steps)
        assert controller.timeline.shown.t == key.time
        body = controller.timeline.shown.snapshot.position[0].tolist()
        target = list(KEYS[0].target) if key.time == 0.0 else body  # held on the body from 0.5 s on
        assert cameras_now(controller) == (*expected[key.time], *target), key.time
    # Looking back at a key's step shows the cameras as they were then.
    controller.apply(PanelEdits(seek=30))
    assert cameras_now(controller)[:4] == expected[0.5]


def test_the_toggle_and_a_hold_stop_the_keys_and_another_scene_brings_its_own(tmp_path):
    controller, _ = controller_on(scene_with_keys(), tmp_path)
    director = controller.choices.camera
    controller.apply(PanelEdits(camera_keys=False))
    assert not director.playing and not director.steers(0.2)
    controller.apply(PanelEdits(camera_keys=True))
    director.grab(0.2)  # a drag in the window (render/run_view.py) holds the cameras until the next key
    assert not director.steers(0.4) and director.steers(0.5)
    controller.apply(PanelEdits(scene="t_handle", reset=True))
    assert not controller.choices.camera.path and not controller.choices.camera.steers(0.0)


def test_save_writes_the_keys_back(tmp_path):
    controller, _ = controller_on(scene_with_keys(), tmp_path)
    controller.apply(PanelEdits(save_text="story.toml"))
    controller.apply(PanelEdits(save_scene=True))
    assert not controller.form.message_is_error, controller.form.message
    assert load_scene(tmp_path / "story.toml").camera == KEYS
