"""A progress bar for long commands, on stderr and only when stderr is a terminal."""

from __future__ import annotations

import sys
import time

__all__ = ["ProgressBar"]


class ProgressBar:
    """A one-line progress bar on stderr (only when stderr is a terminal): steps, rate and time left."""

    def __init__(self, label: str, unit: str = "steps") -> None:
        self.label = label
        self.unit = unit
        self.enabled = sys.stderr.isatty()
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._last_draw < 0.1 and done < total):
            return
        self._last_draw = now
        elapsed = now - self._start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        filled = int(30 * done / total)
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} {self.unit}, "
            f"{rate:,.1f} {self.unit}/s, {left:5.1f} s left "
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
