"""Kicks in the real window (Xvfb): "Kick now" and a Ctrl+drag on the 3D view strike every copy of the compare
preset at the same step, the plots get their marker, and the screenshot shows the Kick section."""

import numpy as np

from tests.ui.test_app import ask, decode_png, fresh, run_frames


def test_kick_now_and_a_ctrl_drag_strike_every_copy_in_the_window(app):
    from pyglet.window import key, mouse

    fresh(app, "compare")
    app.state.paused = True
    app.controller.step(60)
    before, step = app.timeline.session.snapshot.L_world.copy(), app.timeline.session.simulation.step_index
    ask(app, kick_text="0, 0, 3")
    ask(app, kick=(app.state.selected_body, None))
    assert app.form.kick_error is None
    app.controller.step(1)
    run_frames(app, 2)
    jump = app.timeline.session.snapshot.L_world - before
    implicit = [i for i, name in enumerate(app.state.integrators) if name in ("implicit_midpoint", "im4", "exact")]
    np.testing.assert_allclose(jump[implicit], np.tile([0.0, 0.0, 3.0], (len(implicit), 1)), atol=1e-9)
    assert len(app.state.scene.kicks) == len(app.state.scene.bodies)
    assert app.plots.series.kick_times == [(step + 1) * app.timeline.session.h]

    # Ctrl+drag over the middle of the 3D view, to the right.
    x, y = int(app.window.width * 0.55), int(app.window.height * 0.6)
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, key.MOD_CTRL)
    for _ in range(10):
        app.window.dispatch_event("on_mouse_drag", x, y, 12, 0, mouse.LEFT, key.MOD_CTRL)
    app.window.dispatch_event("on_mouse_release", x + 120, y, mouse.LEFT, key.MOD_CTRL)
    run_frames(app, 1)
    assert len(app.state.scene.kicks) == 2 * len(app.state.scene.bodies)
    app.state.paused = False
    run_frames(app, 30)
    assert len(app.plots.series.kick_times) == 2 and app.state.error is None

    app.window.dispatch_event("on_key_press", key.F12, 0)
    run_frames(app, 1)
    image = decode_png(app.last_screenshot)
    assert image.shape[:2] == tuple(reversed(app.window.get_framebuffer_size())) and image.std() > 5


def _centre_of(app, body):
    """Window point (pyglet's, origin bottom left) of scene body ``body``'s first copy as drawn."""
    ratio = app.window.get_framebuffer_size()[0] / app.window.width
    circles = app.mouse.circles(only_index=body)
    return int(round(circles.x[0] / ratio)), int(round(circles.y[0] / ratio))


def test_a_click_selects_the_body_under_it_and_a_ctrl_drag_strikes_that_body(app):
    from pyglet.window import key, mouse

    fresh(app, "hierarchy")
    app.state.paused = True
    run_frames(app, 3)
    dynamic = [i for i, body in enumerate(app.state.scene.bodies) if not body.kinematic]
    target = dynamic[-1]
    assert app.state.selected_body != target
    x, y = _centre_of(app, target)
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, 0)
    app.window.dispatch_event("on_mouse_release", x, y, mouse.LEFT, 0)
    run_frames(app, 1)
    assert app.state.selected_body == target

    # Ctrl+drag from another body strikes that one, not the selected one, and draws the arrow while it lasts.
    other = dynamic[0]
    x, y = _centre_of(app, other)
    kicks = len(app.state.scene.kicks)
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, key.MOD_CTRL)
    for step in range(1, 6):
        app.window.dispatch_event("on_mouse_drag", x + 10 * step, y, 10, 0, mouse.LEFT, key.MOD_CTRL)
    run_frames(app, 1)
    assert app.mouse.drag == "kick" and app.mouse.kick_body == other
    app.window.dispatch_event("on_mouse_release", x + 50, y, mouse.LEFT, key.MOD_CTRL)
    run_frames(app, 1)
    new = app.state.scene.kicks[kicks:]
    assert new and {kick.body for kick in new} == {app.state.scene.bodies[other].name}
    assert app.state.selected_body == other


def test_follow_keeps_the_selected_body_where_the_view_framed_it(app):
    from pyglet.window import key

    fresh(app, "heavy_top")
    ask(app, side_by_side=True, compare=("euler", True))
    run_frames(app, 3)
    app.window.dispatch_event("on_key_press", key.F, 0)
    run_frames(app, 1)
    assert app.state.follow
    body = app.state.selected_body
    start = app.timeline.session.drawable().position
    offsets = [start[g.bodies[body]] - c.target for g, c in zip(app.view.groups, app.view.cameras, strict=True)]
    app.state.time_scale_exp = 3
    run_frames(app, 40)
    now = app.timeline.session.drawable().position
    for group, camera, offset in zip(app.view.groups, app.view.cameras, offsets, strict=True):
        np.testing.assert_allclose(now[group.bodies[body]] - camera.target, offset, atol=1e-9)
