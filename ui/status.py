"""The panel's status line, measured by the window: frame time and steps per frame over the last frames, and the
speed achieved against the one asked for (below 1 when stepping lags real time)."""

from __future__ import annotations

import time
from collections import deque

import numpy as np

from spinlab.ui.controller_state import Status

__all__ = ["StatusMeter", "FRAME_STATS"]

FRAME_STATS = 60  # frames over which frame time and speed are averaged


class StatusMeter:
    """What the last :data:`FRAME_STATS` frames took and advanced, written into a :class:`Status`."""

    def __init__(self) -> None:
        self._frame_s: deque[float] = deque(maxlen=FRAME_STATS)
        self._last: float | None = None
        self._speed: deque[tuple[int, float, float]] = deque(maxlen=FRAME_STATS)  # steps, advanced, requested

    def advanced(self, steps: int, seconds: float, requested: float) -> None:
        """A frame took ``steps`` steps, ``seconds`` of simulated time, of the ``requested`` seconds."""
        self._speed.append((steps, seconds, requested))

    def update(self, status: Status, sim_t: float) -> None:
        """``status`` now, at simulated time ``sim_t`` shown; frame time as the clock sees it, whatever time the
        caller fed the simulation."""
        now = time.perf_counter()
        if self._last is not None:
            self._frame_s.append(now - self._last)
        self._last = now
        status.sim_t = sim_t
        status.frame_ms = 1e3 * float(np.median(self._frame_s)) if self._frame_s else 0.0
        recent = np.array(self._speed) if self._speed else np.array([[0.0, 1.0, 1.0]])
        steps, advanced, requested = recent.sum(axis=0)
        status.speed_ratio = advanced / requested if requested > 0 else 1.0
        status.steps_per_frame = steps / len(recent)
