"""A progress bar for long commands, on stderr and only when stderr is a terminal."""

from __future__ import annotations

import sys
import time

__all__ = ["ProgressBar", "duration_text"]

SMOOTHING = 0.3  # the weight of the latest stretch's rate in the rate the time left is reckoned from
REDRAW_S = 0.1  # the bar is drawn again at most this often


def duration_text(seconds: float) -> str:
    """``"42 s"``, ``"3:05"``, ``"1:02:03"``: a time left as a person reads it."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressBar:
    """A one-line progress bar on stderr (only when stderr is a terminal): done of total, rate and time left.

    The time left is reckoned from a smoothed recent rate, not the average since the start: the first frames of a
    recording (a title card's, repeated; or the start-up's) are not what the rest costs."""

    def __init__(self, label: str, unit: str = "steps") -> None:
        self.label = label
        self.unit = unit
        self.enabled = sys.stderr.isatty()
        self._start = self._last_draw = time.perf_counter()
        self._last_done = 0
        self._rate: float | None = None

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._last_draw < REDRAW_S and done < total):
            return
        stretch = now - self._last_draw
        if stretch > 0 and done > self._last_done:
            latest = (done - self._last_done) / stretch
            self._rate = latest if self._rate is None else (1 - SMOOTHING) * self._rate + SMOOTHING * latest
        self._last_draw, self._last_done = now, done
        rate = self._rate or 0.0
        if done >= total:
            left = f"took {duration_text(now - self._start)}"
        else:
            left = f"{duration_text((total - done) / rate)} left" if rate > 0 else "time left unknown"
        filled = int(30 * done / total) if total else 30
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} {self.unit}, "
            f"{rate:,.1f} {self.unit}/s, {left}   "
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
