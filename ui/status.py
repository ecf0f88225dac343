"""The panel's status line, measured by the window: frame time and steps per frame over the last frames, the speed
achieved against the one asked for (below 1 when stepping lags), and the frame's budget: the milliseconds each part
of a frame took (:data:`FRAME_PARTS`), so that a person on a slow machine sees what to turn off."""

from __future__ import annotations

import time
from collections import deque

import numpy as np

from spinlab.ui.controller_state import Status

__all__ = ["StatusMeter", "FRAME_STATS", "FRAME_PARTS"]

FRAME_STATS = 60  # frames over which frame time, speed and the parts' times are averaged
# The parts of a frame the window times, in the order the status line names them, and what each is (its tooltip):
# what would make it cheaper.
FRAME_PARTS = {
    "steps": "stepping the run and measuring each step (slower speed, fewer bodies or integrators)",
    "plots": "laying out the plots (P hides them; or show fewer)",
    "panel": "laying out this panel (H hides it)",
    "views": "the 3D views' instances and draw calls (one view, fewer overlays, no side by side)",
    "ui": "handing the panel's and the plots' triangles to OpenGL (fewer plots)",
    "gpu": "waiting for the last frame's pixels (a smaller window, no trails or plots)",
}


class _Part:
    """The timer of one part of a frame: ``with meter.part(name):`` adds the block's seconds to it."""

    __slots__ = ("meter", "name", "start")

    def __init__(self, meter: StatusMeter, name: str) -> None:
        self.meter, self.name, self.start = meter, name, 0.0

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc) -> None:
        spent = self.meter.spent
        spent[self.name] = spent.get(self.name, 0.0) + time.perf_counter() - self.start


class StatusMeter:
    """What the last :data:`FRAME_STATS` frames took and advanced, written into a :class:`Status`."""

    def __init__(self) -> None:
        self._frame_s: deque[float] = deque(maxlen=FRAME_STATS)
        self._last: float | None = None
        self._speed: deque[tuple[int, float, float]] = deque(maxlen=FRAME_STATS)  # steps, advanced, requested
        self.spent: dict[str, float] = {}  # s, each part's of the frame under way (:meth:`part`)
        self._parts: deque[dict[str, float]] = deque(maxlen=FRAME_STATS)
        # Over the frames in _parts: each part's seconds and the frames that timed it, kept as frames come and go.
        self._sums = dict.fromkeys(FRAME_PARTS, 0.0)
        self._timed = dict.fromkeys(FRAME_PARTS, 0)
        self._timers = {name: _Part(self, name) for name in FRAME_PARTS}

    def advanced(self, steps: int, seconds: float, requested: float) -> None:
        """A frame took ``steps`` steps, ``seconds`` of simulated time, of the ``requested`` seconds."""
        self._speed.append((steps, seconds, requested))

    def part(self, name: str) -> _Part:
        """``with meter.part(name):`` times a part of the frame (one of :data:`FRAME_PARTS`); a part may be timed
        several times a frame, its times add up."""
        return self._timers[name]

    def update(self, status: Status, sim_t: float) -> None:
        """``status`` now, at simulated time ``sim_t`` shown; frame time as the clock sees it, whatever time the
        caller fed the simulation. Called once a frame: the parts timed since the last call are one frame's."""
        now = time.perf_counter()
        if self._last is not None:
            self._frame_s.append(now - self._last)
            self._count_parts(self.spent)
        self.spent = {}
        self._last = now
        status.sim_t = sim_t
        status.frame_ms = 1e3 * float(np.median(self._frame_s)) if self._frame_s else 0.0
        recent = np.array(self._speed) if self._speed else np.array([[0.0, 1.0, 1.0]])
        steps, advanced, requested = recent.sum(axis=0)
        status.speed_ratio = advanced / requested if requested > 0 else 1.0
        status.steps_per_frame = steps / len(recent)
        count = max(len(self._parts), 1)
        status.parts_ms = {name: 1e3 * max(self._sums[name], 0.0) / count for name in FRAME_PARTS if self._timed[name]}

    def _count_parts(self, spent: dict[str, float]) -> None:
        """A frame's ``spent`` into the last frames' sums, the oldest frame's out once there are enough."""
        if len(self._parts) == self._parts.maxlen:
            for name, seconds in self._parts[0].items():
                self._sums[name] -= seconds
                self._timed[name] -= 1
        self._parts.append(spent)
        for name, seconds in spent.items():
            self._sums[name] += seconds
            self._timed[name] += 1


def budget_line(status: Status) -> tuple[str, str]:
    """The status line of the frame's budget and its tooltip: ``"frame 14.2 ms: plots 6, views 4, steps 3, …"``, each
    part's mean ms, the largest first (the line may be cut at the panel's edge: what is cut matters least); the
    tooltip says what each part is, in :data:`FRAME_PARTS`' order, and the steps per frame. Before any part is timed,
    the frame time and the steps per frame."""
    parts = status.parts_ms
    steps = f"{status.steps_per_frame:.1f} steps/frame"
    if not parts:
        return f"frame {status.frame_ms:.1f} ms, {steps}", steps
    largest = sorted(parts.items(), key=lambda part: -part[1])
    tip = "\n".join(f"{name} {ms:.1f} ms: {FRAME_PARTS[name]}" for name, ms in parts.items())
    return (
        f"frame {status.frame_ms:.1f} ms: {', '.join(f'{name} {_ms(ms)}' for name, ms in largest)}",
        f"ms a frame, over the last {FRAME_STATS} frames; {steps}\n{tip}",
    )


def _ms(value: float) -> str:
    """A part's milliseconds in few characters: whole ones, tenths below one."""
    return f"{value:.1f}" if value < 0.95 else f"{value:.0f}"
