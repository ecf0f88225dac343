"""Camera keys in the real window (Xvfb): a scene file's keys move every view of a comparison alike, a drag on the
3D view holds the cameras until the next key, the panel's toggle stops them, and screenshots at two keys differ."""

import numpy as np

from tests.ui.test_app import ask, decode_png, run_frames

SCENE = """
[scene]
description = "camera keys"

[[body]]
name = "handle"
shape = "t_handle"
inertia = [1.3, 1.4, 2.5]
body_angular_velocity = [0.05, 5.0, 0.05]

[[camera]]
time = 0.0
azimuth = -40.0
elevation = 15.0
distance = 3.5
target = [0.0, 0.0, 0.0]
fov = 40.0

[[camera]]
time = 0.5
azimuth = 60.0
target = "handle"

[[camera]]
time = 1.0
elevation = 55.0
distance = 6.0
fov = 30.0
"""
KEYED = {0.0: (-40.0, 15.0, 3.5, 40.0), 0.5: (60.0, 15.0, 3.5, 40.0), 1.0: (60.0, 55.0, 6.0, 30.0)}


def angles(camera):
    return (camera.azimuth_deg, camera.elevation_deg, camera.distance, camera.fov_y_deg)


def step_to(app, t):
    """Paused, the run stepped on to ``t`` s and a frame drawn."""
    timeline = app.timeline
    app.controller.step(round(t / timeline.session.h) - timeline.shown_step)
    run_frames(app, 1)
    assert timeline.shown.t == t


def screenshot(app):
    from pyglet.window import key

    app.window.dispatch_event("on_key_press", key.F12, 0)
    run_frames(app, 1)
    return decode_png(app.last_screenshot)


def test_camera_keys_move_every_view_alike_and_a_drag_holds_them_until_the_next_key(app, tmp_path):
    from pyglet.window import mouse

    path = tmp_path / "story.toml"
    path.write_text(SCENE, encoding="utf-8")
    state = app.state
    state.paused, state.side_by_side, state.compared = True, True, ["implicit_midpoint", "rkmk4"]
    ask(app, scene=str(path), reset=True)
    for _ in range(200):  # a file is read in the background (ui/scene_load.py)
        if state.scene_name == "story" and app.view.cameras:
            break
        run_frames(app, 1)
    assert state.scene_name == "story" and len(app.view.cameras) == 2 and state.camera.path
    state.paused = True

    shots = {}
    for t in (0.0, 0.5):
        step_to(app, t)
        positions = app.timeline.shown.snapshot.position
        for group, camera in zip(app.view.groups, app.view.cameras, strict=True):
            assert angles(camera) == KEYED[t], (t, group.label)
            aim = [0.0, 0.0, 0.0] if t == 0.0 else positions[group.bodies[0]].tolist()
            assert camera.target.tolist() == aim, (t, group.label)
        shots[t] = screenshot(app)
    moved = np.abs(shots[0.0].astype(int) - shots[0.5].astype(int)).max(axis=2) > 40
    assert moved.mean() > 0.01, "the views turned between the keys"

    # A drag on the 3D view holds the cameras, in every view, until the next key.
    step_to(app, 0.6)
    x, y = int(app.window.width * 0.55), int(app.window.height * 0.6)
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, 0)
    for _ in range(5):
        app.window.dispatch_event("on_mouse_drag", x, y, 10, 4, mouse.LEFT, 0)
    app.window.dispatch_event("on_mouse_release", x + 50, y + 20, mouse.LEFT, 0)
    run_frames(app, 1)
    held = [angles(camera) for camera in app.view.cameras]
    assert held[0] == held[1] and held[0][:2] != KEYED[0.5][:2]
    step_to(app, 0.9)
    assert [angles(camera) for camera in app.view.cameras] == held, "held until the next key"
    step_to(app, 1.0)
    assert all(angles(camera) == KEYED[1.0] for camera in app.view.cameras), "the next key takes them again"

    # The panel's toggle off: the cameras stay where they are.
    ask(app, camera_keys=False)
    step_to(app, 1.2)
    framed = [angles(camera) for camera in app.view.cameras]
    ask(app, seek=30)  # back to the key at 0.5 s
    assert [angles(camera) for camera in app.view.cameras] == framed
    ask(app, camera_keys=True)
    run_frames(app, 1)
    assert all(angles(camera) == KEYED[0.5] for camera in app.view.cameras)
