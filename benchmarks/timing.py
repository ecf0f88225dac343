"""The best time per call of a function: the least of several runs of many calls, with Python's cyclic garbage
collector paused (scene/process/collector.py) so that a collection does not land in one run and not another."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from spinlab.scene.process.collector import collector_paused

__all__ = ["best_seconds_per_call"]


def best_seconds_per_call(call: Callable[[], Any], repeats: int, calls: int) -> float:
    """The least, over ``repeats`` runs of ``calls`` calls of ``call`` in a row, of the seconds per call."""
    best = math.inf
    with collector_paused():
        for _ in range(repeats):
            begin = time.perf_counter()
            for _ in range(calls):
                call()
            best = min(best, (time.perf_counter() - begin) / calls)
    return best
