"""Every panel control that acts on a click, clicked as a person clicks it, in the real window under Xvfb: the mouse
moved onto the control, pressed and held for 100–600 ms of frames, released, while the panel's message line and
the stepping line change from frame to frame. Each click must act on the control under the mouse and on nothing
else: a control that moved between press and release (a label with the running seconds in its ID, a line that
comes and goes above it) drops the click or lets it land on its neighbour.

The controls are found by spying on ImGui's clickable widgets as the panel draws them (their label, the rectangle
ImGui laid them out in, and whether they acted this frame); pressing is pyglet's mouse events, as a real mouse
gives them to the window."""

import random

import pytest
from imgui_bundle import imgui

from tests.ui.test_app import FRAME_S, fresh

# ImGui's widgets that act on a click, with what they return when they act: a bool, or (changed, value).
CLICKABLE = ("button", "small_button", "checkbox", "radio_button", "selectable")
HOLD_FRAMES = (6, 36)  # 100–600 ms at 60 frames per second
# Controls left out: what opens a file dialog or a popup is tested by the controller, not by a click here.
SKIPPED = ("##",)


class ControlSpy:
    """Wraps :data:`CLICKABLE` in ``imgui`` to note, per frame, each control the panel draws: its ID (the label's
    part after ``###`` when it has one: what ImGui keys it by), its rectangle and whether it acted."""

    def __init__(self, monkeypatch) -> None:
        self.frame: list[tuple[str, tuple[float, float, float, float], bool]] = []
        for name in CLICKABLE:
            monkeypatch.setattr(imgui, name, self._wrap(getattr(imgui, name)))

    def _wrap(self, real):
        def spy(label, *args, **kwargs):
            result = real(label, *args, **kwargs)
            low, high = imgui.get_item_rect_min(), imgui.get_item_rect_max()
            acted = bool(result[0] if isinstance(result, tuple) else result)
            self.frame.append((control_id(label), (low.x, low.y, high.x, high.y), acted))
            return result

        return spy

    def take(self) -> list[tuple[str, tuple[float, float, float, float], bool]]:
        frame, self.frame = self.frame, []
        return frame


def control_id(label: str) -> str:
    return label.split("###")[-1] if "###" in label else label


def frame(app, spy, flicker: int):
    """One frame, with the message line and the stepping line made to change (``flicker``: the frame's number)."""
    if flicker % 2:
        app.controller.tell(f"message {flicker}")
    else:
        app.controller.tell("")
    spy.take()
    app.window.dispatch_events()
    app.frame(FRAME_S if flicker % 3 else 0.5)  # a long frame: the stepping lags, and says so
    app.window.flip()
    return spy.take()


def visible_controls(app, spy, panel_height: float) -> dict[str, tuple[float, float, float, float]]:
    controls = frame(app, spy, 0)
    width = app.window_layout().panel.width
    return {
        name: rect
        for name, rect, _ in controls
        if rect[2] < width and rect[1] > 30.0 and rect[3] < panel_height - 4.0 and not name.startswith(SKIPPED)
    }


def click(app, spy, rect, hold: int, flicker: int) -> list[str]:
    """Press and release the left button at the middle of ``rect`` (window coordinates, y down) held for ``hold``
    frames; returns the IDs of the controls that acted meanwhile."""
    from pyglet.window import mouse

    x, y_down = 0.5 * (rect[0] + rect[2]), 0.5 * (rect[1] + rect[3])
    y = app.window.height - y_down  # pyglet's y is up
    acted = []
    app.window.dispatch_event("on_mouse_motion", x, y, 0, 0)
    acted += [name for name, _, on in frame(app, spy, flicker) if on]
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, 0)
    for k in range(hold):
        acted += [name for name, _, on in frame(app, spy, flicker + k) if on]
    app.window.dispatch_event("on_mouse_release", x, y, mouse.LEFT, 0)
    for k in range(2):
        acted += [name for name, _, on in frame(app, spy, flicker + hold + k) if on]
    return acted


@pytest.mark.parametrize("scene", ["t_handle"])
def test_every_click_acts_on_the_control_under_it(app, monkeypatch, scene):
    fresh(app, scene)
    spy = ControlSpy(monkeypatch)
    rng = random.Random(23)
    panel_height = app.window.height
    clicked = set()
    for scroll in range(6):  # down the panel, a wheel's worth at a time
        for name in list(visible_controls(app, spy, panel_height)):
            if name in clicked:
                continue
            rect = visible_controls(app, spy, panel_height).get(name)
            if rect is None:  # gone since (a click before changed the panel)
                continue
            acted = click(app, spy, rect, rng.randint(*HOLD_FRAMES), rng.randrange(1000))
            clicked.add(name)
            assert acted == [name], f"a click on {name!r} acted on {acted}"
            if app.form.recording:  # the record button: its label now runs the seconds; a click stops it
                rect = visible_controls(app, spy, panel_height).get(name)
                assert rect is not None, f"{name!r} has another identity while recording: a click on it is dropped"
                assert click(app, spy, rect, rng.randint(*HOLD_FRAMES), rng.randrange(1000)) == [name]
                assert not app.form.recording
        app.window.dispatch_event("on_mouse_motion", 100, 300, 0, 0)
        app.window.dispatch_event("on_mouse_scroll", 100, 300, 0, -4)
        frame(app, spy, scroll)
    assert len(clicked) >= 25, sorted(clicked)


def test_stop_stays_put_when_views_freeze_while_recording(app, monkeypatch):
    """The compare preset recording while its views freeze one after another (a threshold a view gaining energy
    soon passes): the frozen views are said on the panel's one faults line, and the Stop button keeps
    its rectangle, so a click aimed at it stops the recording."""
    from tests.ui.test_app import ask, run_frames

    fresh(app, "compare")
    spy = ControlSpy(monkeypatch)
    app.window.dispatch_event("on_mouse_scroll", 100, 300, 0, 40)  # the panel at its top
    ask(app, toggle_record=True)
    assert app.form.recording
    before = visible_controls(app, spy, app.window.height)["record"]
    ask(app, divergence=1e-4)
    for _ in range(240):  # frames, each a 60th of a second of the run: a view that gains energy freezes in a few
        if app.form.failures:
            break
        run_frames(app, 1)
    assert app.form.failures, "a view froze"
    after = visible_controls(app, spy, app.window.height)["record"]
    assert after == before, "the Stop button moved when the frozen views were listed"
    assert click(app, spy, after, HOLD_FRAMES[0], 1) == ["record"]
    assert not app.form.recording
