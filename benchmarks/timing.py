"""The best time per call of a function (sim/timing.py's, which the window's cost column times with too), with
Python's cyclic garbage collector paused (scene/process/collector.py) so that a collection does not land in one run
and not another."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from spinlab.scene.process.collector import collector_paused
from spinlab.sim import timing

__all__ = ["best_seconds_per_call"]


def best_seconds_per_call(
    call: Callable[[], Any], repeats: int, calls: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The least, over ``repeats`` runs of ``calls`` calls of ``call`` in a row, of the seconds per call, by
    ``clock`` (:func:`sim.timing.best_seconds_per_call`)."""
    with collector_paused():
        return timing.best_seconds_per_call(call, repeats, calls, clock)
