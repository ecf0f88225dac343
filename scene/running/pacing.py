"""How many steps a frame takes: the one rule by which the window and a video pace a run.

Simulation time is the step index times ``h`` (scene/running/simulation.py); the wall clock never enters a step, only
how many steps a frame takes. A video's frame ``k`` shows the step nearest ``k / fps`` (:func:`steps_to`). The window
running live feeds each frame's wall time, times the time scale, into an :class:`Accumulator` and takes the whole
steps due, dropping what it cannot catch up; while it records, it paces as a video does: frame ``k`` of the
recording shows the step nearest its start plus ``k`` frames of ``scale / fps`` seconds.
"""

from __future__ import annotations

import math

__all__ = ["steps_to", "Accumulator"]


def steps_to(step_index: int, h: float, t: float) -> int:
    """The steps to take from step ``step_index`` (of ``h`` s) to the step nearest ``t`` s: one more for every step
    ``n >= step_index`` with ``n h + h/2 <= t`` (none when the run is there or past it, or ``t`` is NaN)."""
    if not step_index * h + 0.5 * h <= t:
        return 0
    last = max(math.floor(t / h - 0.5), step_index)  # the last such n, up to the floor's rounding
    while (last + 1) * h + 0.5 * h <= t:  # corrected with the rule's own comparison
        last += 1
    while last > step_index and last * h + 0.5 * h > t:
        last -= 1
    return last + 1 - step_index


class Accumulator:
    """Simulated seconds owed to a live run: each frame adds its share (:meth:`due`), the steps taken are paid
    (:meth:`took`), and what could not be caught up is dropped, so that a slow machine runs slowly rather than
    ever further behind."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def due(self, seconds: float, h: float) -> int:
        """Add ``seconds`` of simulated time; the whole steps of ``h`` now due."""
        self.seconds += seconds
        return int(self.seconds / h + 1e-9)

    def took(self, steps: int, due: int, h: float, *, keep: bool = False) -> None:
        """``steps`` of the ``due`` were taken: pay them, and keep at most one step owed when some were not (all
        of them with ``keep``: a recording's frame whose steps are taken over several of the window's frames)."""
        self.seconds -= steps * h
        if steps < due and not keep:
            self.seconds = min(self.seconds, h)
