"""What the app does with a frame's :class:`~ui.panel.PanelEdits` (from the panel or the keyboard), and the
helpers around it: loading a scene into the panel's state, recording, labels, messages.

Every function takes the :class:`~ui.app.App` and changes it; the panel itself never does. Anything a person can
get wrong (a scene file, a value, a folder), and anything else an action raises, ends as a red message in the
panel, never as an exception: :func:`apply` for a frame's edits and :func:`attempt` for the actions carried out
while a frame is drawn (screenshots, video frames) are where that is caught.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import TYPE_CHECKING

from imgui_bundle import imgui

from scene.run_model import check_scene_runs, default_integrators, view_groups
from scene.scene_file import SceneSpec, load_scene
from sim.errors import InputError, SpinlabError, printable
from ui.capture import Recording
from ui.edits import body_texts, edited_body, parse_time_step
from ui.files import timestamped_path
from ui.panel import PanelEdits, PanelState
from ui.plots import export_csv
from ui.scene_toml import check_body, save_scene
from ui.view3d import Rect, SceneView

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["apply", "attempt", "failure_text", "key_edit", "load_scene_into_state", "record_frame", "stop_recording",
           "draw_rec_indicator", "tell"]  # fmt: skip

REC_RGBA = (0.9, 0.2, 0.2, 1.0)
MAX_MESSAGE = 300  # characters of a message in the panel


def tell(app: App, message: str, *, error: bool = False) -> None:
    """Show ``message`` at the bottom of the panel (red when ``error``)."""
    app.state.message, app.state.message_is_error = message, error


def load_scene_into_state(app: App, scene: SceneSpec) -> None:
    """Make ``scene`` the current one, with the integrators and time step it names."""
    state = app.state
    app.scene, app.integrators, app.h = scene, list(default_integrators(scene)), scene.h
    state.scene_name, state.scene_description = scene.name, scene.description
    state.body_names = [body.name for body in scene.bodies]
    state.integrators = list(app.integrators)
    state.h_text, state.h_error = _step_text(scene.h), None
    state.save_text = state.save_text or f"{scene.name}-edited.toml"
    _select_body(app, 0)


def _step_text(h: float) -> str:
    """``"1/60"`` when ``h`` is the reciprocal of a whole number (to rounding), else the number."""
    rate = round(1.0 / h)
    return f"1/{rate}" if rate > 0 and 1.0 / rate == h else f"{h:.10g}"


def _select_body(app: App, index: int) -> None:
    app.state.selected_body = index
    app.state.body_texts = body_texts(app.scene.bodies[index])
    app.state.body_errors = {}


def attempt(app: App, action, *args, failed: str = "not done") -> bool:
    """Run ``action(*args)``, the one place where what a person asked for can fail: anything it raises (a
    :class:`SpinlabError`, or any other ``Exception``: a ``ValueError``, an arithmetic or linear-algebra error, an
    ``OSError``) is shown in red in the panel as ``"<failed>: <why>"``, and the window goes on. Returns whether
    it succeeded."""
    try:
        action(*args)
    except Exception as error:  # noqa: BLE001 - every failure of an action ends here, as a message
        tell(app, f"{failed}: {failure_text(error)}", error=True)
        return False
    return True


def failure_text(error: BaseException) -> str:
    """What went wrong, in one line of at most ~300 characters: a domain error's own message, else the kind of
    error and its text (a bug or a fault the code did not foresee)."""
    text = str(error) if isinstance(error, SpinlabError) else f"{type(error).__name__}: {error}".rstrip(": ")
    text = printable(text)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


@dataclasses.dataclass(frozen=True)
class _Checkpoint:
    """The setup as it was before a frame's edits: put back when they fail before a new run has started."""

    scene: SceneSpec
    integrators: tuple[str | None, ...]
    h: float
    session: object
    state: PanelState

    @classmethod
    def take(cls, app: App) -> _Checkpoint:
        return cls(app.scene, tuple(app.integrators), app.h, app.session, dataclasses.replace(app.state))

    def restore(self, app: App) -> None:
        app.scene, app.integrators, app.h = self.scene, list(self.integrators), self.h
        for name in _SETUP_FIELDS:
            setattr(app.state, name, getattr(self.state, name))


# The panel's fields that mirror the setup (what is typed into text fields is kept, to be corrected).
_SETUP_FIELDS = ("scene_name", "scene_description", "body_names", "integrators", "side_by_side", "compared",
                 "gyroscopic", "selected_body", "body_texts", "paused", "error", "split_views")  # fmt: skip


def apply(app: App, edits: PanelEdits) -> None:
    """Carry out ``edits`` (see :class:`PanelEdits`). This is the one place edits are applied, and so where they
    fail: whatever an edit raises is shown in red (beside the field it came from, if any, else at the top of the
    panel), and the run goes on from its last good state: the setup is put back unless a new run had already
    started, which then stays."""
    state = app.state
    for name in ("scene_text", "output_dir", "save_text", "h_text"):
        if getattr(edits, name) is not None:
            setattr(state, name, getattr(edits, name))
    if edits.body_text is not None:
        field, text = edits.body_text
        state.body_texts = {**state.body_texts, field: text}
    before = _Checkpoint.take(app)
    try:
        _apply_setup_edits(app, edits)
        _apply_run_edits(app, edits)
        _apply_view_edits(app, edits)
        _apply_file_edits(app, edits)
    except Exception as error:  # noqa: BLE001 - the one place a panel action's failure is caught (see above)
        if app.session is before.session:
            before.restore(app)
        _show_failure(app, edits, failure_text(error), before.state.recording)


def _show_failure(app: App, edits: PanelEdits, message: str, was_recording: bool) -> None:
    """Put ``message`` beside the field the failed edit came from, or at the top of the panel."""
    state = app.state
    if edits.scene is not None:
        state.scene_error = message
    elif edits.apply_h:
        state.h_error = message
    elif edits.apply_body is not None:
        state.body_errors = {**state.body_errors, edits.apply_body: message}
    else:
        tell(app, f"{_what_failed(edits, was_recording)}: {message}", error=True)


def _what_failed(edits: PanelEdits, was_recording: bool) -> str:
    """What a person asked for, as the start of the message saying it failed."""
    if edits.export_csv:
        return "plots not exported"
    if edits.save_scene:
        return "scene not saved"
    if edits.toggle_record:
        return "video not saved" if was_recording else "cannot record"
    if edits.step:
        return "cannot step"
    if edits.reset or edits.integrator or edits.compare or edits.side_by_side is not None:
        return "cannot restart"
    return "not done"


def _apply_setup_edits(app: App, edits: PanelEdits) -> None:
    """Edits that change the setup, then one restart if any did."""
    state = app.state
    if edits.scene is not None:
        scene = load_scene(edits.scene)
        check_scene_runs(scene)
        state.scene_error = None
        load_scene_into_state(app, scene)
        app.restart()
    restart = False
    if edits.side_by_side is not None:
        state.side_by_side, restart = edits.side_by_side, True
    if edits.compare is not None:
        name, on = edits.compare
        chosen = [
            other
            for other in state.integrator_names
            if (other == name and on) or (other != name and other in state.compared)
        ]
        if chosen:  # at least one
            state.compared, restart = chosen, True
    if edits.integrator is not None:
        index, name = edits.integrator
        app.integrators[index] = name
        state.integrators, restart = list(app.integrators), True
    if edits.apply_h:
        h = parse_time_step(state.h_text)
        state.h_error, restart = None, restart or h != app.h
        app.h = h
    if edits.apply_body is not None:
        _apply_body_edit(app, edits.apply_body)
        restart = True
    if edits.select_body is not None:
        _select_body(app, edits.select_body)
    if restart or edits.reset:
        app.restart()


def _apply_body_edit(app: App, field: str) -> None:
    """The selected body with ``field`` set from its text, checked as a scene file's body is."""
    state, index = app.state, app.state.selected_body
    body = edited_body(app.scene.bodies[index], field, state.body_texts.get(field, ""))
    check_body(body, app.integrators[index])
    bodies = list(app.scene.bodies)
    bodies[index] = body
    app.scene = dataclasses.replace(app.scene, bodies=tuple(bodies))
    state.body_errors = {key: value for key, value in state.body_errors.items() if key != field}


def _apply_run_edits(app: App, edits: PanelEdits) -> None:
    state = app.state
    if edits.gyroscopic is not None:
        state.gyroscopic = edits.gyroscopic
        app.session.set_gyroscopic(edits.gyroscopic)
    if edits.time_scale_exp is not None:
        state.time_scale_exp = edits.time_scale_exp
    if edits.toggle_pause and not state.error:
        state.paused = not state.paused
    if edits.step and not state.error:
        state.paused = True
        app.step(1)


def _apply_view_edits(app: App, edits: PanelEdits) -> None:
    state = app.state
    if edits.render is not None:
        state.render = edits.render
        app.renderer.options = edits.render
    if edits.plot_shown is not None:
        name, on = edits.plot_shown
        state.plots.shown[name] = on
    if edits.show_plots is not None:
        state.show_plots = edits.show_plots
    if edits.reset_view:
        app.view.reset_cameras()
    if edits.split_views is not None:
        state.split_views = edits.split_views
        app.view = SceneView(app.renderer, app.text, view_groups(app.session, edits.split_views))


def _apply_file_edits(app: App, edits: PanelEdits) -> None:
    state = app.state
    if edits.record_window is not None:
        state.record_window = edits.record_window
    if edits.screenshot:
        app.want_screenshot = True
    if edits.toggle_record:
        stop_recording(app) if app.recording else _start_recording(app)
    if edits.export_csv:
        path = export_csv(app.history, timestamped_path(state.output_dir, state.scene_name, ".csv"))
        tell(app, f"plotted series saved to {path}")
    if edits.save_scene:
        path = save_scene(state.save_text.strip(), app.scene, tuple(app.integrators), app.h)
        tell(app, f"scene saved to {path}")


def _start_recording(app: App) -> None:
    directory = app.state.output_dir
    if not os.path.isdir(directory):
        raise InputError(f"folder '{directory}' does not exist")
    app.recording = Recording(timestamped_path(directory, app.state.scene_name, ".mp4"))
    app.state.recording = True
    tell(app, f"recording to {app.recording.path}")


def record_frame(app: App, viewport: tuple[int, int, int, int]) -> None:
    """Add this frame's ``viewport`` to the recording; a change of size (the window was resized) ends it, and so
    does a failure (the video keeps what was recorded if it can, else no file is left), which is then raised."""
    try:
        added = app.recording.add(app.ctx, viewport)
    except Exception:
        with contextlib.suppress(Exception):  # the first failure is the one to report
            stop_recording(app)
        app.recording, app.state.recording = None, False
        raise
    if not added:
        stop_recording(app, note=" (stopped: the window was resized)")
        return
    if app.announce_recording and app.recording.frames == 1:
        print(f"recording to {app.recording.path}", flush=True)


def stop_recording(app: App, note: str = "") -> str:
    """Finalise the video (a playable MP4), say where it is in the panel and return that message. A video that
    cannot be finalised leaves no file, and the error is raised."""
    recording, app.recording, app.state.recording = app.recording, None, False
    path = recording.finish()
    message = f"video saved to {path} ({recording.frames} frames, {recording.seconds:.1f} s){note}"
    tell(app, message)
    app.last_video = path
    return message


def draw_rec_indicator(app: App, view: Rect) -> None:
    """A red dot and the recorded time at the top right of the 3D view (drawn over it, not recorded with it)."""
    draw_list = imgui.get_foreground_draw_list()
    text = f"REC  {app.recording.seconds:5.1f} s"
    size = imgui.calc_text_size(text)
    right, top = view.x + view.width - 16.0, view.y + 14.0
    left = right - size.x - 28.0
    draw_list.add_rect_filled(
        imgui.ImVec2(left - 8, top - 6),
        imgui.ImVec2(right + 8, top + size.y + 6),
        imgui.get_color_u32(imgui.ImVec4(0, 0, 0, 0.6)),
        6.0,
    )
    draw_list.add_circle_filled(
        imgui.ImVec2(left + 8, top + 0.5 * size.y), 6.0, imgui.get_color_u32(imgui.ImVec4(*REC_RGBA))
    )
    draw_list.add_text(imgui.ImVec2(left + 22, top), imgui.get_color_u32(imgui.ImVec4(1, 1, 1, 1)), text)


def key_edit(app: App, symbol: int, key) -> bool:
    """Turn a key into a pending edit; returns whether the key means something here."""
    pending = app.pending
    if symbol == key.SPACE:
        pending.toggle_pause = not pending.toggle_pause
    elif symbol == key.RIGHT:
        pending.step = True
    elif symbol == key.R:
        pending.reset = True
    elif symbol == key.F12:
        pending.screenshot = True
    elif symbol == key.V:
        pending.reset_view = True
    elif symbol == key.P:
        pending.show_plots = not app.state.show_plots
    elif symbol == key.H:
        app.show_panel = not app.show_panel
    else:
        return False
    return True
