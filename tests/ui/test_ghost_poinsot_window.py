"""The exact ghost, the flip counts and the Poinsot view in the real window under Xvfb, driven through the panel's
edits (as a click would) and read back from the screen."""

import dataclasses

import numpy as np

from spinlab.render.views import bounding_viewport
from spinlab.ui.capture import read_pixels
from tests.ui.test_app import ask, fresh, run_frames


def _view_pixels(app, viewport):
    run_frames(app, 1)
    app.frame(1.0 / 60.0)
    pixels = read_pixels(app.window_frame.framebuffer, viewport).astype(int)
    app.window.flip()
    return pixels


def test_ghost_toggles_in_the_window(app):
    fresh(app, "t_handle")
    ask(app, integrator=(None, "euler"))
    app.state.paused = True
    app.controller.step(round(6.0 / app.timeline.session.h))  # euler has turned far from the closed form by now
    assert app.timeline.session.latest.sample.orientation_error[-1, 0] > 0.05
    assert app.renderer.ghost is not None and app.renderer.ghost.applies_to(app.timeline.session.t)
    area = bounding_viewport(app.view.viewports)
    with_ghost = _view_pixels(app, area)
    ask(app, render=dataclasses.replace(app.state.render, show_ghost=False))
    assert app.renderer.options.show_ghost is False
    without = _view_pixels(app, area)
    assert (np.abs(with_ghost - without).sum(axis=2) > 6).sum() > 200
    ask(app, render=dataclasses.replace(app.state.render, show_ghost=True))
    np.testing.assert_array_equal(_view_pixels(app, area), with_ghost)


def test_flip_counts_in_the_labels(app):
    from spinlab.scene.model.run_model import view_labels

    fresh(app, "t_handle")
    ask(app, integrator=(None, "im6"))
    app.state.paused = True
    app.controller.step(round(10.0 / app.timeline.session.h))
    (label,) = view_labels(app.timeline.session, app.view.groups)
    assert label[-1] == "flips 1 (exact 1)"


def test_poinsot_view_takes_part_of_the_area_and_follows_the_run(app):
    fresh(app, "t_handle")
    app.state.paused = True
    run_frames(app, 1)
    assert app.view.poinsot_viewport is None
    whole = bounding_viewport(app.view.viewports)
    ask(app, render=dataclasses.replace(app.state.render, show_poinsot=True))
    assert app.state.render.show_poinsot
    poinsot = app.view.poinsot_viewport
    assert poinsot is not None and bounding_viewport(app.view.viewports)[2] < whole[2]
    assert poinsot[0] >= sum(bounding_viewport(app.view.viewports)[::2])  # to the right of the grid
    before = _view_pixels(app, poinsot)
    traces = app.renderer.poinsot_traces
    count = traces.count
    app.controller.step(120)
    assert traces.count == count + 120
    after = _view_pixels(app, poinsot)
    assert after.std() > 10.0, "the Poinsot view is blank"
    assert (np.abs(after - before).sum(axis=2) > 6).sum() > 100, "the construction does not move"
    ask(app, render=dataclasses.replace(app.state.render, show_poinsot=False))
    assert app.view.poinsot_viewport is None


def test_the_poinsot_view_shows_the_body_selected_in_the_panel(app):
    fresh(app, "compare")  # one T-handle per integrator, every one torque-free with a closed form
    app.state.paused = True
    ask(app, render=dataclasses.replace(app.state.render, show_poinsot=True))
    assert app.renderer.poinsot_traces.body == 0
    ask(app, select_body=3)
    app.controller.step(2)
    traces = app.renderer.poinsot_traces
    assert traces.body == 3 and app.timeline.session.scene.bodies[3].integrator == "implicit_midpoint"
    app.controller.step(10)
    assert app.renderer.poinsot_traces is traces and traces.count >= 10  # kept while the selection stays
    # Side by side: the first copy of the handle that stands for every handle (one a view, the first integrator's).
    ask(app, side_by_side=True)
    app.controller.step(2)
    first_copy = app.timeline.session.groups[0].bodies
    assert first_copy == (0,) and app.renderer.poinsot_traces.body == first_copy[0]
    ask(app, side_by_side=False, render=dataclasses.replace(app.state.render, show_poinsot=False))


def test_the_poinsot_view_keeps_a_body_it_can_show_when_the_selected_one_has_a_torque(app):
    fresh(app, "heavy_top")  # no torque-free body at all: no Poinsot view
    app.state.paused = True
    ask(app, select_body=0)
    app.controller.step(2)
    assert app.renderer.poinsot_traces is False


def test_the_mouse_wheel_over_the_poinsot_view_zooms_it_alone(app):
    fresh(app, "compare")
    app.state.paused = True
    ask(app, render=dataclasses.replace(app.state.render, show_poinsot=True))
    run_frames(app, 2)
    ratio = app.window.get_framebuffer_size()[0] / app.window.width
    x, y, width, height = app.view.poinsot_viewport  # framebuffer pixels, GL's bottom-left origin, as pyglet's y
    grid_before = [camera.distance for camera in app.view.cameras]
    poinsot_before = app.view.poinsot_camera.scale
    app.on_mouse_scroll((x + 0.5 * width) / ratio, (y + 0.5 * height) / ratio, 0.0, 2.0)
    assert app.view.poinsot_camera.scale > 1.2 * poinsot_before  # magnified about the herpolhodes (poinsot_view.py)
    assert [camera.distance for camera in app.view.cameras] == grid_before
    gx, gy, gw, gh = app.view.viewports[0]
    app.on_mouse_scroll((gx + 0.5 * gw) / ratio, (gy + 0.5 * gh) / ratio, 0.0, 2.0)
    assert all(
        after < 0.9 * before
        for after, before in zip([camera.distance for camera in app.view.cameras], grid_before, strict=True)
    )
    ask(app, render=dataclasses.replace(app.state.render, show_poinsot=False))
