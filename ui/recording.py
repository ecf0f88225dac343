"""The video being recorded from the window: its frames, its stop, its finalising and its indicator.

While recording, each frame of the video is exactly 1/60 s × the time scale of the run, so the video plays at the
chosen speed however slow the window is: its steps are taken within the frame's budget, over several of the
window's frames when they are dear (:attr:`Recorder.behind` meanwhile), and the frame that gets there is recorded.
Looking back at a past step, a recording plays the run's recorded steps from there to the run now, then stops.

Stopping hands the video to a thread that finalises it (the encoder's queue and lookahead encoded, the MP4 written
and moved into place: up to a few tenths of a second at 720p on two busy cores, longer than a frame may take);
the panel says so, and says where the video is once it is there (:meth:`Recorder.collect_finished`, each frame).
Closing the window waits for it.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from imgui_bundle import imgui

from spinlab.ui.capture import Recording
from spinlab.ui.controller import failure_text
from spinlab.ui.view3d import Rect

if TYPE_CHECKING:
    import moderngl

    from spinlab.ui.controller import Controller

__all__ = ["Recorder", "Finishing"]

REC_RGBA = (0.9, 0.2, 0.2, 1.0)


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


class Recorder:
    """The window's recording (:attr:`recording`, ``None`` when not recording) and the videos being finalised
    (:attr:`finishing`), said in the panel through ``controller``. ``announce``: print "recording to PATH" on stdout
    at the first frame (the command line's ``gui --record``)."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.recording: Recording | None = None
        self.finishing: list[Finishing] = []
        self.last_video: Path | None = None
        self.announce = False
        self.until: int | None = None  # the last step of a recording of the step record (start)
        self.behind = False  # the steps to the video's next frame are not all taken yet

    def start(self, path: Path, shown_step: int, last_step: int) -> None:
        """Record from the next frame on; looking back (``shown_step`` before ``last_step``), the recorded steps to
        the run now, played on at the chosen speed, and then stop (:meth:`stop_at_present`)."""
        self.recording, self.behind = Recording(path), False
        if shown_step < last_step:
            self.until = last_step
            self.controller.choices.paused = False

    def record_frame(self, framebuffer: moderngl.Framebuffer, viewport: tuple[int, int, int, int]) -> None:
        """Add ``viewport`` of ``framebuffer``, this frame's, to the recording; a change of size (the window was
        resized) ends it, and so does a failure (the video keeps what was recorded if it can, else no file is left),
        which is then raised."""
        recording = self.recording
        assert recording is not None, "a frame is recorded only while a recording runs"
        try:
            added = recording.add(framebuffer, viewport)
        except Exception:
            with contextlib.suppress(Exception):  # the first failure is the one to report
                self.stop()
            self.recording, self.controller.form.recording = None, False
            raise
        if not added:
            self.stop(note=" (stopped: the window was resized)")
            return
        if self.announce and recording.frames == 1:
            print(f"recording to {recording.path}", flush=True)

    def stop_at_present(self, shown_step: int) -> None:
        """A recording of the step record stops, paused, once the run now (``shown_step`` at its end) is drawn."""
        if self.until is not None and (self.recording is None or shown_step >= self.until):
            self.until = None
            choices = self.controller.choices
            choices.paused = choices.paused or self.recording is not None
            if self.recording is not None:
                self.controller.attempt(self.stop, failed="video not saved")

    def stop(self, note: str = "", *, wait: bool = False) -> str:
        """Stop recording: the video is finalised in the background (:class:`Finishing`; its path is said in the
        panel once it is there, :meth:`collect_finished`), or now with ``wait``: then it says where the video is and
        returns that message, or raises the error (no file is left)."""
        recording, self.recording, self.controller.form.recording = self.recording, None, False
        assert recording is not None, "only a running recording is stopped"
        if wait:
            return self._saved(recording, note, recording.finish())
        self.finishing.append(Finishing(recording, note).start())
        message = f"finishing the video ({recording.frames} frames, {recording.seconds:.1f} s){note} …"
        self.controller.tell(message)
        return message

    def collect_finished(self, *, wait: bool = False) -> list[str]:
        """Say, for each video finalised since the last call, where it is or why it was not saved (in the panel),
        and return those messages; ``wait``: every video still being finalised too, waiting for it."""
        messages, pending = [], []
        for finishing in self.finishing:
            if not (wait or finishing.done()):
                pending.append(finishing)
                continue
            try:
                messages.append(self._saved(finishing.recording, finishing.note, finishing.result()))
            except Exception as error:  # noqa: BLE001 - said, as the panel says every failure
                messages.append(f"video not saved: {failure_text(error)}")
                self.controller.tell(messages[-1], error=True)
        self.finishing = pending
        return messages

    def finish(self) -> str | None:
        """Finalise a recording in progress and wait for those stopped before it (playable files, or none where
        one cannot be made; no GL is needed). Returns what became of them, for a person who no longer sees the
        panel (``None``: there were none)."""
        notes = self.collect_finished(wait=True)
        if self.recording is not None:
            try:
                notes.append(self.stop(wait=True))
            except Exception as error:  # noqa: BLE001 - said in the note; closing goes on
                notes.append(f"video not saved: {failure_text(error)}")
        return "; ".join(notes) if notes else None

    def paths_in_use(self) -> frozenset[Path]:
        """The paths of the videos being finalised: not there yet, and not to be given to a new recording."""
        return frozenset(finishing.recording.path for finishing in self.finishing)

    def _saved(self, recording: Recording, note: str, path: Path) -> str:
        message = f"video saved to {path} ({recording.frames} frames, {recording.seconds:.1f} s){note}"
        self.controller.tell(message)
        self.last_video = path
        return message

    def draw_indicator(self, view: Rect) -> None:
        """A red dot and the recorded time at the bottom left of the 3D view (drawn over it, not recorded with it): the
        views' labels hold the top of every cell of a grid, the state badge the bottom centre, the overlays' key the
        bottom right."""
        draw_list = imgui.get_foreground_draw_list()
        recording = self.recording
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
