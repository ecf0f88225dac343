"""The best time per call of a function: the least of several runs of many calls. One function for what the window's
cost column times (sim/world.py's ``World.time_groups``) and what the benchmarks time (benchmarks/timing.py, with
the garbage collector paused), so that the two figures are the same measurement of the same call."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

__all__ = ["best_seconds_per_call"]


def best_seconds_per_call(
    call: Callable[[], Any], repeats: int, calls: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The least, over ``repeats`` runs of ``calls`` calls of ``call`` in a row, of the seconds per call: wall
    seconds, or the process's CPU seconds with ``clock=time.process_time`` (every thread's, which others' load
    inflates far less)."""
    best = math.inf
    for _ in range(repeats):
        begin = clock()
        for _ in range(calls):
            call()
        best = min(best, (clock() - begin) / calls)
    return best
