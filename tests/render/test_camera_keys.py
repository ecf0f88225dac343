"""Camera keys on real GL (EGL, offscreen; render/run_view.py's ``steer``): every view of a comparison takes each
key alike (a body target: each view's copy of it), a person's drag holds the cameras until the next key, ``--follow``
wins over the keys, and a recorded video (decoded with PyAV) shows at each key what an offscreen render of that key's
camera predicts."""

import dataclasses

import av
import numpy as np
import pytest

from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.record import VideoRun, video_setup
from spinlab.render.text import TextOverlay
from spinlab.render.video_file import record_scene
from spinlab.scene.files.camera_table import CameraKey
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.camera_path import CameraState

SIZE = (320, 180)
# Two keys giving every value, at whole steps of 1/60 s, and a key between them that aims at the body.
KEYS = (
    CameraKey(0.0, azimuth=-60.0, elevation=20.0, distance=4.0, target=(0.0, 0.0, 0.0), fov=35.0),
    CameraKey(0.5, azimuth=30.0, elevation=50.0, distance=2.5, target="handle", fov=50.0),
    CameraKey(1.0, azimuth=120.0, elevation=-10.0, distance=6.0, target=(0.0, 0.0, 0.3), fov=30.0),
)


def keyed(keys=KEYS):
    return dataclasses.replace(load_scene("t_handle"), camera=keys)


def state_of(camera):
    state = camera.state()
    return (state.azimuth, state.elevation, state.distance, state.fov, *state.target.tolist())


def key_values(key, target):
    return (key.azimuth, key.elevation, key.distance, key.fov, *np.asarray(target, dtype=float).tolist())


@pytest.fixture
def target(gl_context):
    offscreen = OffscreenTarget(gl_context, *SIZE, samples=0)
    yield offscreen
    offscreen.release()


def test_every_view_of_a_comparison_is_at_each_key_alike(gl_context, target):
    run = VideoRun(gl_context, video_setup(keyed(), "axes", True))  # the axes splittings side by side
    try:
        views = len(run.session.groups)
        assert views > 1
        for key in KEYS:
            run.advance_to(key.time)
            assert run.t == key.time
            run.draw(target.framebuffer, SIZE)
            snapshot = run.session.drawable()
            for group, camera in zip(run.view.groups, run.view.cameras, strict=True):
                # A body target: this view's copy of the body, where it is now.
                aim = snapshot.position[group.bodies[0]] if isinstance(key.target, str) else key.target
                assert state_of(camera) == key_values(key, aim), (key.time, group.label)
    finally:
        run.release()


def test_a_drag_holds_the_cameras_until_the_next_key(gl_context, target):
    run = VideoRun(gl_context, video_setup(keyed(), None, True))
    try:
        run.advance_to(0.1)
        run.draw(target.framebuffer, SIZE)
        run.view.orbit(25.0, -5.0)  # a person's drag, between the keys at 0 and 0.5 s
        held = state_of(run.view.cameras[0])
        for t in (0.2, 0.3, 0.45):
            run.advance_to(t)
            run.draw(target.framebuffer, SIZE)
            assert state_of(run.view.cameras[0]) == held, t
        run.advance_to(0.5)  # the next key takes the cameras again
        aim = run.session.drawable().position[0]
        assert state_of(run.view.cameras[0]) == key_values(KEYS[1], aim)
        run.advance_to(0.75)
        assert state_of(run.view.cameras[0]) != key_values(KEYS[1], aim), "and moves them on"
        run.advance_to(1.0)
        run.view.zoom(2.0)  # the wheel holds them too, past the last key for good, until "Reset view"
        run.advance_to(1.2)
        assert state_of(run.view.cameras[0])[2] == pytest.approx(KEYS[2].distance * 0.81)
        run.view.reset_cameras()
        run.draw(target.framebuffer, SIZE)
        assert state_of(run.view.cameras[0]) == key_values(KEYS[2], KEYS[2].target)
    finally:
        run.release()


def test_follow_wins_over_the_keys(gl_context, target):
    run = VideoRun(gl_context, video_setup(keyed(), None, True), follow=0)
    try:
        run.advance_to(0.0)
        run.draw(target.framebuffer, SIZE)
        framed = state_of(run.view.cameras[0])
        run.advance_to(1.0)
        assert state_of(run.view.cameras[0])[:4] == framed[:4], "the keys' angles are not played"
    finally:
        run.release()


def decoded(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


def predicted(ctx, target, t: float, state, scene=None, size=SIZE) -> np.ndarray:
    """The frame at ``t`` of ``scene`` (t_handle's) without keys, its camera set to ``state`` (framed: ``None``; a
    function: of the framed camera's state)."""
    text = TextOverlay(ctx)  # labelled as record labels its frames (the key's strip below the view)
    run = VideoRun(ctx, video_setup(dataclasses.replace(scene or keyed(()), camera=()), None, True), text=text)
    try:
        run.advance_to(t)
        run.draw(target.framebuffer, size)
        if state is not None:
            camera = run.view.cameras[0]
            camera.set_state(state(camera.state()) if callable(state) else state)
            run.draw(target.framebuffer, size)
        return target.read()
    finally:
        run.release()
        text.release()


def test_a_recorded_video_shows_the_camera_of_each_key(gl_context, target, tmp_path):
    keys = (KEYS[0], KEYS[2])  # every value given, point targets: no framing or body in the prediction
    out = tmp_path / "keys.mp4"
    record_scene(keyed(keys), out, duration=1.1, fps=10, size=SIZE)
    frames = decoded(out)
    assert len(frames) == 11
    for frame, key in ((frames[0], keys[0]), (frames[10], keys[1])):
        state = CameraState(key.azimuth, key.elevation, key.distance, np.array(key.target), key.fov)
        expected = predicted(gl_context, target, key.time, state)
        still = predicted(gl_context, target, key.time, None)  # the framing, had the camera not moved
        wrong = apart(frame, expected)
        assert wrong < 0.006, (key.time, wrong)  # the codec's loss alone (~0.002 on thin lines)
        if key is keys[1]:
            assert apart(frame, still) > 0.02, "the camera moved from its framing"  # ~0.04
    assert apart(frames[0], frames[10]) > 0.02


def apart(a: np.ndarray, b: np.ndarray) -> float:
    """The fraction of pixels of two frames whose luma (BT.709, which H.264 keeps at full size; the chroma of a thin
    coloured line is halved) differs by more than a codec's loss, 30 of 255."""
    luma = np.array([0.2126, 0.7152, 0.0722])
    return float(np.mean(np.abs(a.astype(float) @ luma - b.astype(float) @ luma) > 30.0))


def test_in_the_compare_grid_each_view_aims_at_its_own_body(gl_context, target):
    keys = (CameraKey(0.0, azimuth=10.0, distance=2.0, target="magnus"),)
    run = VideoRun(gl_context, video_setup(dataclasses.replace(load_scene("compare"), camera=keys), None, True))
    try:
        run.advance_to(0.25)
        run.draw(target.framebuffer, SIZE)
        positions = run.session.drawable().position
        assert len(run.view.groups) > 1 and all(len(group.bodies) == 1 for group in run.view.groups)
        for group, camera in zip(run.view.groups, run.view.cameras, strict=True):
            assert camera.target.tolist() == positions[group.bodies[0]].tolist(), group.label
            assert (camera.azimuth_deg, camera.distance) == (10.0, 2.0)
    finally:
        run.release()
