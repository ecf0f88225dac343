"""A scripted change in the real window (Xvfb): the panel's gyroscopic box follows the term the run takes at the step
shown, past the change and looking back before it; the plots mark it; and in a branch the orientation plot keeps its
title, whole or short, never cut, at 100 % and 200 % text; a click on the box looking back branches, and
"end branch…", "keep the original" undoes it."""

import pytest
from imgui_bundle import imgui, implot

from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.plot_titles import SHORT_TITLES, fitted_text
from spinlab.ui.plots import PLOT_TITLES
from tests.scene.test_run_changes import changed_scene
from tests.ui.window_frames import run_frames, start_running

BOX = "gyroscopic term"


@pytest.fixture
def drawn(monkeypatch):
    """What the window draws, frame by frame: the gyroscopic box's value, the change markers' times and the plot
    titles shown (title: text)."""
    seen: dict = {"box": [], "changes": [], "titles": {}}
    checkbox, inf_lines = imgui.checkbox, implot.plot_inf_lines

    def spy_checkbox(label, value, *args):
        if label == BOX:
            seen["box"].append(value)
        return checkbox(label, value, *args)

    def spy_inf_lines(label, values, *args):
        if label.startswith("gyroscopic term##"):
            seen["changes"].append(list(values))
        return inf_lines(label, values, *args)

    def spy_title(title, width, **options):
        seen["titles"][title] = fitted_text(title, width, **options)
        return seen["titles"][title]

    from spinlab.ui import plot_titles, plots

    monkeypatch.setattr(imgui, "checkbox", spy_checkbox)
    monkeypatch.setattr(implot, "plot_inf_lines", spy_inf_lines)
    monkeypatch.setattr(plot_titles, "fitted_text", spy_title)
    monkeypatch.setattr(plots, "fitted_text", spy_title)
    return seen


def test_the_gyroscopic_box_follows_a_scripted_change(app, drawn, tmp_path):
    start_running(app, str(changed_scene(tmp_path, "\n[[change]]\ntime = 1.0\ngyroscopic = false\n").path))
    run_frames(app, 1)
    assert drawn["box"][-1] is True
    while app.timeline.session.t < 1.5:  # 8 steps a frame
        run_frames(app, 1)
    app.state.paused = True
    run_frames(app, 1)
    assert app.timeline.session.simulation.world.gyroscopic is False
    assert drawn["box"][-1] is False, "past the change the box is unticked"
    assert drawn["changes"][-1] == [1.0], "the time plots mark it"
    app.pending = PanelEdits(seek=30)  # t = 0.5 s, before the change
    run_frames(app, 1)
    assert drawn["box"][-1] is True
    app.pending = PanelEdits(to_present=True)
    run_frames(app, 1)
    assert drawn["box"][-1] is False
    assert app.state.error is None and not app.form.message_is_error


@pytest.mark.parametrize("text_scale", [1.0, 2.0])
def test_a_branch_keeps_the_orientation_plots_title(app, drawn, tmp_path, text_scale):
    start_running(app, "t_handle")
    while app.timeline.session.t < 2.0:
        run_frames(app, 1)
    app.pending = PanelEdits(seek=60, branch=True)
    run_frames(app, 1)
    app.pending = PanelEdits(gyroscopic=False)
    app.state.paused = False
    run_frames(app, 4)
    assert app.timeline.original is not None
    app.state.text_scale, app.state.plots.focus = text_scale, "orientation" if text_scale > 1.0 else ""
    drawn["titles"].clear()
    run_frames(app, 2)
    try:
        title = PLOT_TITLES["orientation"]
        assert drawn["titles"][title] in (title, SHORT_TITLES[title]), drawn["titles"]
        assert set(drawn["titles"]) <= set(PLOT_TITLES.values()) | {"accuracy vs cost"}
        assert app.plots.series.original is not None and app.plots.series.divergence is not None
    finally:
        app.state.text_scale, app.state.plots.focus = 1.0, ""
        app.pending = PanelEdits(reset=True)
        run_frames(app, 1)


def test_a_click_on_the_box_looking_back_branches_and_keep_the_original_undoes_it(app, monkeypatch):
    from tests.ui.test_panel_clicks import ControlSpy

    start_running(app, "t_handle")
    while app.timeline.session.t < 2.0:
        run_frames(app, 1)
    was, present = app.timeline.session, app.timeline.session.simulation.step_index
    app.pending = PanelEdits(seek=60)
    run_frames(app, 1)
    spy = ControlSpy(monkeypatch)
    mouse_click(app, spy, BOX)
    assert app.timeline.original is not None and app.timeline.original.session is was
    assert app.form.message.startswith("changed at t = 1 s as a branch") and app.form.in_force.gyroscopic is False
    mouse_click(app, spy, "branch")  # "end branch…": asks which run to keep
    mouse_click(app, spy, "keep the original: the branch is undone")
    assert app.timeline.original is None and app.timeline.session is was and app.timeline.shown_step == 60
    assert was.record.last_step == present and app.form.in_force.gyroscopic is True
    assert app.form.message == "back to the original at t = 1 s: the branch is gone"


def mouse_click(app, spy, control: str) -> None:
    """Move onto ``control`` (as the last frame drew it), press, hold a few frames and release, as a mouse does."""
    from pyglet.window import mouse

    spy.take()
    run_frames(app, 1)
    rect = next(rect for name, rect, _ in spy.take() if name == control)
    x, y = 0.5 * (rect[0] + rect[2]), app.window.height - 0.5 * (rect[1] + rect[3])
    app.window.dispatch_event("on_mouse_motion", x, y, 0, 0)
    run_frames(app, 1)
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, 0)
    run_frames(app, 3)
    app.window.dispatch_event("on_mouse_release", x, y, mouse.LEFT, 0)
    run_frames(app, 2)
