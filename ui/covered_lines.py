"""The lines of a plot that a line drawn after them hides: each is left out, since what it would add to the screen
lies under the later line.

The plots draw their bodies' lines in order, each over the ones before, all of the same weight. Integrators that
agree to a fraction of a pixel trace one line: the herpolhode of compare's accurate integrators, the Newton
iterations (none) of every explicit one, a side-by-side run's integrators of one handle. Every such line costs ImPlot
two triangles a point and the rasteriser their pixels, for nothing one sees. A line is covered when at every sample
it is within :data:`COVERED_PX` of a later line that is itself drawn; only that line's edge, a tenth of a pixel
aside, differs from the plot drawn with both.

What is compared is a bound kept as samples come (ui/plot_series.py's ``PlotSeries.spread``): for each pair of
lines, the largest difference of their values along each axis over every sample, in the plot's data units; a frame
scales it to pixels. A pair that ever differed by more than a pixel's fraction, or had a value where the other had
none (NaN), stays apart: the bound only errs towards drawing a line.
"""

from __future__ import annotations

import numpy as np

__all__ = ["covered", "spread_px", "COVERED_PX"]

COVERED_PX = 0.1


def spread_px(spread: np.ndarray, rows: list[int], scales: tuple[float, float]) -> np.ndarray:
    """(D, D) px: how far apart on screen the lines of ``rows`` (D,) are at most, from ``spread``: each pair's
    largest difference along y (K, K), the lines sharing their x, or along x and y (K, K, 2), in data units;
    ``scales`` the plot's pixels per unit of x and y."""
    picked = spread[np.ix_(rows, rows)]
    if picked.ndim == 2:
        return picked * scales[1]
    return np.hypot(picked[..., 0] * scales[0], picked[..., 1] * scales[1])


def covered(apart_px: np.ndarray, within_px: float = COVERED_PX) -> np.ndarray:
    """(D,) bool: which of D lines drawn in order (each over the ones before) a later line covers, ``apart_px``
    (D, D) bounding how far apart two lines are on screen (NaN: never covered). A line goes only under one that no
    later line covers (drawn, then), which a group of lines that all agree has in its last."""
    close = np.triu(apart_px <= within_px, 1)
    on_top = ~close.any(axis=1)
    return np.asarray((close & on_top).any(axis=1))
