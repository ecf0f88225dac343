"""The lines of a plot that a line drawn after them hides: each is left out, since what it would add to the screen
lies under the later line.

The plots draw their bodies' lines in order, each over the ones before, all of the same weight. Integrators that
agree to a fraction of a pixel trace one line: the herpolhode of compare's accurate integrators, the Newton
iterations (none) of every explicit one, a side-by-side run's integrators of one handle. Every such line costs ImPlot
two triangles a point and the rasteriser their pixels, for nothing one sees. A line is covered when at every sample
it is within :data:`COVERED_PX` of a later line that is itself drawn; only that line's edge, a tenth of a pixel
aside, differs from the plot drawn with both.

What is compared is a bound kept as samples come (ui/plot_series.py's ``PlotSeries.spread``): for each pair of
lines, how far apart their points were at most over the samples held (and perhaps older ones), in the plot's data
units; a frame scales it to pixels. A pair that was further apart than a pixel's fraction, or had a value where the
other had none (NaN), stays apart, and every pair while the bound is not known (``inf``): the bound only errs
towards drawing a line.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["covered", "COVERED_PX"]

COVERED_PX = 0.1


def covered(spread: np.ndarray, rows: list[int], px_per_unit: float, within_px: float = COVERED_PX) -> np.ndarray:
    """(D,) bool: which of the lines ``rows`` (D,), drawn in that order (each over the ones before), a later line
    covers on screen, from ``spread`` (K, K): how far apart the series' lines are at most, in data units of which
    the plot draws ``px_per_unit`` pixels. A line goes only under one that no later line covers (drawn, then),
    which a group of lines that all agree has in its last."""
    picked = spread if len(rows) == len(spread) else spread[np.ix_(rows, rows)]  # rows: ascending, unique
    close = (picked <= within_px / max(px_per_unit, 1e-300)) & _later(len(picked))
    on_top = ~close.any(axis=1)
    return np.asarray((close & on_top).any(axis=1))


@cache
def _later(count: int) -> np.ndarray:
    """(count, count) bool: line j is drawn after line i."""
    return np.triu(np.ones((count, count), dtype=bool), 1)
