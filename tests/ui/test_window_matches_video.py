"""The window and a video of the same setup show the same thing: the same views with the same label lines, and the
same herpolhode trails (one point per simulation step in both, however many steps a window frame takes).

A real window (Xvfb) runs its frame loop; ``record``'s run (render/record.py's ``VideoRun`` of ``video_setup``, as
``render_frames`` drives it, frame after frame) is advanced to the same simulated time on the window's GL context
(``render_frames``'s own text overlay cannot be made beside the window's ImGui context); then the labels of every
view (what ``render_grid`` draws) and the trail points each renderer holds are compared, exactly.
"""

import numpy as np
import pytest

from spinlab.render.record import VideoRun, frame_count, video_setup
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import view_labels
from spinlab.ui.panel import PanelEdits

FRAME_S = 1.0 / 60.0


def run_frames(app, count, wall_dt=FRAME_S):
    for _ in range(count):
        app.window.dispatch_events()
        app.frame(wall_dt)
        app.window.flip()


@pytest.mark.parametrize(
    "name, side_by_side, video_integrator, time_scale_exp, frames",
    [
        ("t_handle", True, "all", 0, 40),  # every integrator side by side (integrator all)
        ("heavy_top", False, None, 3, 12),  # 8×: 16 steps of 1/120 s a frame, a trail point for each
        ("compare", False, None, 3, 10),  # one view per integrator, 8 steps a frame
    ],
)
def test_the_window_and_the_video_show_the_same_labels_and_trails(
    app, name, side_by_side, video_integrator, time_scale_exp, frames
):
    state = app.state
    state.paused, state.time_scale_exp, state.gyroscopic = False, 0, True
    app.pending = PanelEdits(scene=name, side_by_side=side_by_side, reset=True)
    run_frames(app, 1)  # loads the scene and restarts; this frame steps too
    assert state.scene_name == name and state.error is None and state.side_by_side is side_by_side
    state.time_scale_exp = time_scale_exp
    run_frames(app, frames)
    session = app.timeline.session
    steps = session.simulation.step_index
    assert state.error is None and steps >= frames
    if time_scale_exp:
        assert app.renderer.trail.pushed > app.plots.series.version - steps, "several steps a frame"
    window_labels = view_labels(session, app.view.groups)
    window_trail, window_age = app.renderer.trail.omega_world()
    window_groups = app.view.groups

    scene, h = load_scene(name), session.h
    assert h == scene.h
    # One video frame per step: the last frame is the window's state.
    fps = 1.0 / h
    run = VideoRun(app.ctx, video_setup(scene, video_integrator, True))
    for frame in range(frame_count((steps + 1) * h, fps)):  # render_frames' schedule: frame k at t = k / fps
        run.advance_to(frame / fps)
    assert run.t == pytest.approx(session.t, abs=1e-12) and run.session.simulation.step_index == steps
    assert run.session.groups == window_groups
    assert view_labels(run.session, run.view.groups) == window_labels
    assert len(window_labels) == len(window_groups) and all(len(lines) in (2, 3) for lines in window_labels)
    assert window_labels[0][1].startswith(f"t = {session.t:.2f} s    |ΔE|/E = ")
    video_trail, video_age = run.renderer.trail.omega_world()
    assert run.renderer.trail.pushed == app.renderer.trail.pushed == steps + 1, "the initial state and every step"
    np.testing.assert_array_equal(video_age, window_age)
    np.testing.assert_array_equal(video_trail, window_trail)
    run.release()
    run_frames(app, 1)  # the window goes on drawing
    assert state.error is None
