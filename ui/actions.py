"""What the app does with a frame's :class:`~ui.panel.PanelEdits` (from the panel or the keyboard), and the
helpers around it: loading a scene into the panel's state, recording, labels, messages.

Every function takes the :class:`~ui.app.App` and changes it; the panel itself never does. Anything a person can
get wrong (a scene file, a value, a folder) ends as a red message in the panel, never as an exception.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from imgui_bundle import imgui

from render.look import linear_to_srgb
from scene.scene_file import SceneSpec, load_scene
from sim.errors import SpinlabError
from ui.capture import Recording
from ui.edits import body_texts, edited_body, parse_time_step
from ui.files import timestamped_path
from ui.panel import PanelEdits
from ui.plots import PlotHistory, export_csv
from ui.scene_toml import save_scene
from ui.session import Group, Session, default_integrators
from ui.view3d import Rect, SceneView

if TYPE_CHECKING:
    from ui.app import App

__all__ = ["apply", "key_edit", "load_scene_into_state", "new_history", "view_groups", "view_labels", "record_frame",
           "stop_recording", "draw_rec_indicator", "tell"]  # fmt: skip

REC_RGBA = (0.9, 0.2, 0.2, 1.0)


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


def new_history(session: Session, renderer) -> PlotHistory:
    """Empty plots for ``session``'s bodies, in their colours; one exact reference per distinct initial state."""
    colors = linear_to_srgb(renderer.layout.colors_rgba[session.plotted, :3])
    return PlotHistory(session.names, colors, session.exact_rows)


def view_groups(app: App) -> tuple[Group, ...]:
    """The session's groups, one view each, or all bodies in one view when the panel asks for that."""
    session = app.session
    if app.state.split_views:
        return session.groups
    return (Group(session.scene.name, tuple(range(len(session.scene.bodies)))),)


def view_labels(app: App) -> list[tuple[str, ...]]:
    """Per view: its label and the largest relative energy error of its bodies."""
    session, sample = app.session, app.last_sample
    row = {int(index): k for k, index in enumerate(session.plotted)}
    labels = []
    for group in app.view.groups:
        errors = [sample.energy_error[row[i]] for i in group.bodies if i in row]
        detail = f"t = {session.t:.2f} s    |ΔE|/E = {max(errors):.1e}" if errors else f"t = {session.t:.2f} s"
        labels.append((group.label, detail))
    return labels


def _restart_safely(app: App) -> None:
    try:
        app.restart()
    except SpinlabError as error:
        app.state.error, app.state.paused = str(error), True


def apply(app: App, edits: PanelEdits) -> None:
    """Carry out ``edits`` (see :class:`PanelEdits`)."""
    state = app.state
    for name in ("scene_text", "output_dir", "save_text"):
        if getattr(edits, name) is not None:
            setattr(state, name, getattr(edits, name))
    if edits.scene is not None:
        try:
            scene = load_scene(edits.scene)
        except SpinlabError as error:
            state.scene_error = str(error)
        else:
            state.scene_error = None
            load_scene_into_state(app, scene)
            _restart_safely(app)
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
    if edits.h_text is not None:
        state.h_text = edits.h_text
    if edits.apply_h:
        try:
            h = parse_time_step(state.h_text)
        except ValueError as error:
            state.h_error = str(error)
        else:
            state.h_error, restart = None, restart or h != app.h
            app.h = h
    if edits.body_text is not None:
        field, text = edits.body_text
        state.body_texts = {**state.body_texts, field: text}
    if edits.apply_body is not None:
        restart = _apply_body_edit(app, edits.apply_body) or restart
    if edits.select_body is not None:
        _select_body(app, edits.select_body)
    if restart or edits.reset:
        _restart_safely(app)
    _apply_run_edits(app, edits)
    _apply_view_edits(app, edits)
    _apply_file_edits(app, edits)


def _apply_body_edit(app: App, field: str) -> bool:
    state, index = app.state, app.state.selected_body
    try:
        body = edited_body(app.scene.bodies[index], field, state.body_texts.get(field, ""))
    except ValueError as error:
        state.body_errors = {**state.body_errors, field: str(error)}
        return False
    bodies = list(app.scene.bodies)
    bodies[index] = body
    app.scene = dataclasses.replace(app.scene, bodies=tuple(bodies))
    state.body_errors = {key: value for key, value in state.body_errors.items() if key != field}
    return True


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
        app.view = SceneView(app.renderer, app.text, view_groups(app))


def _apply_file_edits(app: App, edits: PanelEdits) -> None:
    state = app.state
    if edits.record_window is not None:
        state.record_window = edits.record_window
    if edits.screenshot:
        app.want_screenshot = True
    if edits.toggle_record:
        stop_recording(app) if app.recording else _start_recording(app)
    try:
        if edits.export_csv:
            path = export_csv(app.history, timestamped_path(state.output_dir, state.scene_name, ".csv"))
            tell(app, f"plotted series saved to {path}")
        if edits.save_scene:
            path = save_scene(state.save_text.strip(), app.scene, tuple(app.integrators), app.h)
            tell(app, f"scene saved to {path}")
    except SpinlabError as error:
        tell(app, str(error), error=True)


def _start_recording(app: App) -> None:
    directory = app.state.output_dir
    if not os.path.isdir(directory):
        tell(app, f"cannot record: folder '{directory}' does not exist", error=True)
        return
    app.recording = Recording(timestamped_path(directory, app.state.scene_name, ".mp4"))
    app.state.recording = True
    tell(app, f"recording to {app.recording.path}")


def record_frame(app: App, viewport: tuple[int, int, int, int]) -> None:
    """Add this frame's ``viewport`` to the recording; a change of size (the window was resized) ends it."""
    try:
        added = app.recording.add(app.ctx, viewport)
    except SpinlabError as error:
        app.recording.abort()
        app.recording, app.state.recording = None, False
        tell(app, f"cannot record: {error}", error=True)
        return
    if not added:
        stop_recording(app, note=" (stopped: the window was resized)")


def stop_recording(app: App, note: str = "") -> None:
    """Finalise the video (a playable MP4) and say where it is."""
    recording, app.recording, app.state.recording = app.recording, None, False
    try:
        path = recording.finish()
    except (SpinlabError, ValueError) as error:
        tell(app, f"video not saved: {error}", error=True)
        return
    tell(app, f"video saved to {path} ({recording.frames} frames, {recording.seconds:.1f} s){note}")
    app.last_video = path


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
