"""What the window does besides applying edits (ui/controller.py does that, with no window): the video being
recorded from the window, and its indicator.

Every function takes the :class:`~ui.app.App`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from imgui_bundle import imgui

from spinlab.ui.view3d import Rect

if TYPE_CHECKING:
    from spinlab.ui.app import App

__all__ = ["record_frame", "stop_recording", "draw_rec_indicator"]

REC_RGBA = (0.9, 0.2, 0.2, 1.0)


def record_frame(app: App, viewport: tuple[int, int, int, int]) -> None:
    """Add this frame's ``viewport`` to the recording; a change of size (the window was resized) ends it, and so
    does a failure (the video keeps what was recorded if it can, else no file is left), which is then raised."""
    recording = app.recording
    assert recording is not None, "a frame is recorded only while a recording runs"
    try:
        added = recording.add(app.ctx, viewport)
    except Exception:
        with contextlib.suppress(Exception):  # the first failure is the one to report
            stop_recording(app)
        app.recording, app.form.recording = None, False
        raise
    if not added:
        stop_recording(app, note=" (stopped: the window was resized)")
        return
    if app.announce_recording and recording.frames == 1:
        print(f"recording to {recording.path}", flush=True)


def stop_recording(app: App, note: str = "") -> str:
    """Finalise the video (a playable MP4), say where it is in the panel and return that message. A video that
    cannot be finalised leaves no file, and the error is raised."""
    recording, app.recording, app.form.recording = app.recording, None, False
    assert recording is not None, "only a running recording is stopped"
    path = recording.finish()
    message = f"video saved to {path} ({recording.frames} frames, {recording.seconds:.1f} s){note}"
    app.controller.tell(message)
    app.last_video = path
    return message


def draw_rec_indicator(app: App, view: Rect) -> None:
    """A red dot and the recorded time at the bottom left of the 3D view (drawn over it, not recorded with it): the
    views' labels hold the top of every cell of a grid, the state badge the bottom centre, the overlays' key the
    bottom right."""
    draw_list = imgui.get_foreground_draw_list()
    recording = app.recording
    assert recording is not None, "the indicator is drawn while a recording runs"
    text = f"REC  {recording.seconds:5.1f} s"
    size = imgui.calc_text_size(text)
    left, top = view.x + 16.0, view.y + view.height - 14.0 - size.y
    right = left + size.x + 28.0
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
