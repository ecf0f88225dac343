"""The real window (Xvfb) with a comparison where one view diverges: the run does not pause, the frozen view is
listed in the panel and labelled on its view, and the others go on. The screenshot is what the report shows."""

from spinlab.scene.model.run_model import view_labels
from tests.ui.test_app import ask, decode_png, fresh, run_frames


def test_t_handle_side_by_side_goes_on_with_euler_body_frozen(app):
    from pyglet.window import key

    state = app.state
    state.paused, state.time_scale_exp, state.gyroscopic = False, 0, True
    ask(app, scene="t_handle", side_by_side=True, reset=True)
    ask(app, divergence=0.03)  # euler_body's |ΔE|/E passes 0.03 at ~8 s at the preset's h; explicit euler's does not
    assert state.side_by_side and app.timeline.session.setup.divergence == 0.03
    state.paused = True
    app.controller.step(round(12.0 / app.timeline.session.h))
    state.paused = False
    run_frames(app, 5)
    assert state.error is None and not state.paused
    (line,) = app.form.failures
    assert line.startswith("euler_body: diverged at t = ")
    labels = {lines[0]: lines[1:] for lines in view_labels(app.timeline.session, app.view.groups)}
    assert labels["euler_body"][0].startswith("diverged at t = ")
    assert labels["euler_body"][1] == "ΔE/E passed +0.03 (energy gained)"
    assert labels["implicit_midpoint"][0].startswith("t = 12.")
    t = app.timeline.session.t
    run_frames(app, 10)
    assert app.timeline.session.t > t  # the others go on
    app.window.dispatch_event("on_key_press", key.F12, 0)
    run_frames(app, 1)
    image = decode_png(app.last_screenshot)
    assert image.shape[2] == 3 and image.std() > 10.0
    ask(app, side_by_side=False, divergence=0.5, reset=True)


def test_the_engine_grid_labels_damping_and_flips_and_freezes_only_the_blow_ups(app):
    """The engines preset's grid of twelve views: the damping steps are labelled so, with their flips against the
    exact count, and go on; only the explicit steps, which gained energy, are frozen. The threshold is lowered to
    0.15 so that both happen within 12 s (the default's take 46 s, tests/ui/test_controller_engines.py)."""
    fresh(app, "engines")
    ask(app, divergence=0.15)
    state = app.state
    state.paused = True
    app.controller.step(round(12.0 / app.timeline.session.h))
    run_frames(app, 2)
    assert state.error is None and len(app.view.groups) == 12
    labels = {lines[0]: lines[1:] for lines in app.timeline.view_labels(app.view.groups)}
    assert sorted(line.split(":")[0] for line in app.form.failures) == ["bullet_explicit", "mujoco_euler"]
    assert labels["mujoco_euler"][0].startswith("diverged at t = ")
    for name in ("bullet_implicit_world", "bullet_implicit_body", "mujoco_implicitfast", "catto2015"):
        detail, damping, flips = labels[name]
        assert detail.startswith("t = 12.") and damping.endswith("% (damping)") and "\N{MINUS SIGN}" in damping
        assert flips.startswith("flips ") and "(exact " in flips
    assert labels["physx"][-1].startswith("flips 0 · 0 (exact ")
    ask(app, divergence=0.5, reset=True)
