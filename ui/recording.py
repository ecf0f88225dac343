"""What the window does besides applying edits (ui/controller.py does that, with no window): the video being
recorded from the window, and its indicator.

Stopping hands the video to a thread that finalises it (the encoder's queue and lookahead encoded, the MP4 written
and moved into place: up to a few tenths of a second at 720p on two busy cores, issue 22: no frame over 0.1 s);
the panel says so, and says where the video is once it is there (:func:`collect_finished`, each frame). Closing the
window waits for it.

Every function takes the :class:`~ui.app.App`.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from imgui_bundle import imgui

from spinlab.ui.controller import failure_text
from spinlab.ui.view3d import Rect

if TYPE_CHECKING:
    from spinlab.ui.app import App
    from spinlab.ui.capture import Recording

__all__ = ["record_frame", "stop_recording", "collect_finished", "paths_in_use", "draw_rec_indicator", "Finishing"]

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


@dataclass
class Finishing:
    """A stopped recording being finalised by its own thread: :meth:`start`, then :meth:`done` and :meth:`result`."""

    recording: Recording
    note: str
    error: BaseException | None = None
    thread: threading.Thread = field(init=False)

    def start(self) -> Finishing:
        self.thread = threading.Thread(target=self._finish, name="spinlab-video-finish")
        self.thread.start()
        return self

    def _finish(self) -> None:
        try:
            self.recording.finish()
        except BaseException as error:  # noqa: BLE001 - handed to the window's thread, which reports it
            self.error = error

    def done(self) -> bool:
        return not self.thread.is_alive()

    def result(self) -> Path:
        """The video's path once :meth:`done`; raises the finalising's error (no file is then left)."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.recording.path


def stop_recording(app: App, note: str = "", *, wait: bool = False) -> str:
    """Stop recording: the video is finalised in the background (:class:`Finishing`; its path is said in the panel
    once it is there, :func:`collect_finished`), or now with ``wait``: then it says where the video is and returns
    that message, or raises the error (no file is left)."""
    recording, app.recording, app.form.recording = app.recording, None, False
    assert recording is not None, "only a running recording is stopped"
    if wait:
        return _saved(app, recording, note, recording.finish())
    app.finishing.append(Finishing(recording, note).start())
    message = f"finishing the video ({recording.frames} frames, {recording.seconds:.1f} s){note} …"
    app.controller.tell(message)
    return message


def collect_finished(app: App, *, wait: bool = False) -> list[str]:
    """Say, for each video finalised since the last call, where it is or why it was not saved (in the panel), and
    return those messages; ``wait``: every video still being finalised too, waiting for it."""
    messages = []
    pending = []
    for finishing in app.finishing:
        if not (wait or finishing.done()):
            pending.append(finishing)
            continue
        try:
            messages.append(_saved(app, finishing.recording, finishing.note, finishing.result()))
        except Exception as error:  # noqa: BLE001 - said, as the panel says every failure
            messages.append(f"video not saved: {failure_text(error)}")
            app.controller.tell(messages[-1], error=True)
    app.finishing = pending
    return messages


def paths_in_use(app: App) -> frozenset[Path]:
    """The paths of the videos being finalised: not there yet, and not to be given to a new recording."""
    return frozenset(finishing.recording.path for finishing in app.finishing)


def _saved(app: App, recording: Recording, note: str, path: Path) -> str:
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
