"""How many steps each of the window's frames takes: the wall time since the last frame, times the time scale, into
a fixed-step accumulator (scene/running/pacing.py), and the whole steps due taken within a time budget.

At most ``MAX_STEPS_PER_FRAME`` are taken, dropping what cannot be caught up, so the window keeps its frame rate
while the simulation lags (the status line says so). Looking back at a past step, the frame plays on through the
recorded steps instead. While recording, each frame of the video is exactly 1/60 s × the time scale of the run, so
the video plays at the chosen speed however slow the window is; its steps are taken within the frame's budget, over
several of the window's frames when they are dear, and only the frame that gets there is recorded
(ui/recording.py's ``Recorder.behind``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spinlab.scene.running.pacing import Accumulator
from spinlab.ui.capture import RECORD_FPS
from spinlab.ui.status import StatusMeter

if TYPE_CHECKING:
    from spinlab.ui.controller import Controller
    from spinlab.ui.recording import Recorder

__all__ = ["FrameSteps", "MAX_STEPS_PER_FRAME"]

MAX_FRAME_S = 0.1  # a longer frame (a stall, a dragged window) counts as this long
MAX_STEPS_PER_FRAME = 240
# While recording every step due is taken (the video's time is exact), up to this many a frame: a tiny h
# (down to a scene file's 1e-50 s) would otherwise never finish a frame. Beyond it the video runs slow.
MAX_RECORD_STEPS_PER_FRAME = 20_000
# Stepping may take this long in a frame, or this share of the recent frame time if that is longer (a frame slow
# to draw leaves room to step: at worst stepping doubles it, never starves it), but never more than the most: a
# frame slow because its steps are (kernels still compiling, the numpy paths step) must not grant itself more
# (no frame over 0.1 s); the simulation then runs behind real time, which the status line says.
STEP_BUDGET_S = 0.008
STEP_BUDGET_SHARE = 0.5
STEP_BUDGET_MOST_S = 0.025


class FrameSteps:
    """The steps of each frame of the ``controller``'s run (recorded by ``recorder``): the simulated time owed
    (:attr:`accumulator`) and what the last frames took (:attr:`status`)."""

    def __init__(self, controller: Controller, recorder: Recorder) -> None:
        self.controller, self.recorder = controller, recorder
        self.accumulator = Accumulator()
        self.status = StatusMeter()

    def restart(self) -> None:
        """A new run: nothing owed."""
        self.accumulator = Accumulator()
        self.recorder.behind, self.recorder.until = False, None

    def advance(self, wall_dt: float) -> None:
        """Feed this frame's ``wall_dt`` s to the accumulator and take the whole steps due (looking back: move on
        through the run's recorded steps, then on live)."""
        controller, recorder = self.controller, self.recorder
        state, timeline, form = controller.choices, controller.timeline, controller.form
        h = timeline.session.h
        if state.paused or (state.error and timeline.moment is None):
            return
        scale = 2.0**state.time_scale_exp
        # Recording, every frame of the video is 1/RECORD_FPS of it at the chosen speed, however long it took to
        # draw; the next one's time is added once the last was recorded.
        if recorder.recording:
            requested = 0.0 if recorder.behind else scale / RECORD_FPS
        else:
            requested = min(wall_dt, MAX_FRAME_S) * scale
        due = self.accumulator.due(requested, h)
        budget = min(max(STEP_BUDGET_S, STEP_BUDGET_SHARE * 1e-3 * form.status.frame_ms), STEP_BUDGET_MOST_S)
        recorder.behind = False  # set again below only by a recording's frame short of its steps
        if timeline.moment is not None:
            most = MAX_RECORD_STEPS_PER_FRAME if recorder.recording else MAX_STEPS_PER_FRAME
            steps = timeline.play(min(due, most), then_live=recorder.until is None)
        elif recorder.recording:
            # The steps to the video's next frame within the frame's budget, over as many of the window's frames as
            # they take; only the frame that gets there is recorded: no frame of the window waits for a video
            # frame's steps.
            asked = min(due, MAX_RECORD_STEPS_PER_FRAME)
            steps = controller.step(asked, budget)
            recorder.behind = steps < asked and not state.paused
        else:
            steps = controller.step(min(due, MAX_STEPS_PER_FRAME), budget)
        self.accumulator.took(steps, due, h, keep=recorder.behind)
        form.status.wall_t += wall_dt
        self.status.advanced(steps, steps * h, requested)

    def update_status(self) -> None:
        """The panel's status line after this frame's steps (ui/status.py)."""
        form, timeline = self.controller.form, self.controller.timeline
        self.status.update(form.status, timeline.shown.t)
        recording = self.recorder.recording
        form.record_seconds = recording.seconds if recording else 0.0
