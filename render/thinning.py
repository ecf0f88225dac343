"""Screen-space thinning of polylines, compiled: the loops behind render/overlays.py ``trail_keep`` (the maths, and
why the kept samples stay within ``error_px`` of the full polyline, are in its docstring).

``trail_keep`` runs on the GUI's main thread every frame, for the herpolhode trails and for each plot's lines. As
numpy operations over the (P, T) batch its cost was mostly the overhead of some thirty small array operations;
these loops do the same arithmetic in one pass per polyline, with the GIL released, several times faster. About
half of what is left is libm's ``hypot``.

The result is the numpy formulation's bit for bit (tests/render/test_thinning.py compares them): the step
lengths are libm's ``hypot``, as ``np.hypot``'s (numba's ``math.hypot`` calls it; CPython's ``math.hypot`` does
not, and differs in the last bit), the path lengths are summed in order, as ``np.cumsum`` does along an axis, and
``L² − c²`` is evaluated as ``(L² − Δx²) − Δy²`` with each square one rounded product.
"""

from __future__ import annotations

import math

import numpy as np

from spinlab.sim.jit import njit

__all__ = ["polyline_keep"]


@njit(cache=True, nogil=True, error_model="numpy")
def polyline_keep(
    pixels, in_front, index, stride, segment_px, unseen_px, curve_limit_px2, max_stride
):  # pragma: no cover - compiled
    """(P, T) bool: the samples of each polyline to draw. ``pixels`` (P, T, 2) float64 C-contiguous, px;
    ``in_front`` (P, T) bool; ``index`` (T,) int64 absolute sample indices, ``stride`` ≥ 1 their spacing;
    ``segment_px`` the longest path a dropped sample may span; ``unseen_px`` the length a step from or to a sample
    behind the eye (or not finite) counts for, ``segment_px + 1``; ``curve_limit_px2`` the bound on L² − c²,
    ``2 error_px²`` px²; ``max_stride`` the stride at which samples are always kept. The two thresholds come in
    precomputed so that they are rounded as the caller's Python arithmetic rounds them."""
    count_polylines, count = pixels.shape[0], pixels.shape[1]
    keep = np.empty((count_polylines, count), dtype=np.bool_)
    if count == 0:
        return keep
    # The window [first, last] of each sample (2^j on each side of it, cut at the ends) and whether its stride
    # alone keeps it: the same for every polyline, as they share the indices.
    first = np.empty(count, dtype=np.int64)
    last = np.empty(count, dtype=np.int64)
    always = np.empty(count, dtype=np.bool_)
    for position in range(count):
        level = index[position] // stride  # floor division, as numpy's
        half = level & -level if level > 0 else max_stride  # 2^j: the largest power of two dividing level
        first[position] = max(position - half, 0)
        last[position] = min(position + half, count - 1)
        always[position] = half >= max_stride
    travelled = np.empty(count, dtype=np.float64)  # along the polyline from its oldest sample
    for polyline in range(count_polylines):
        x, y, front = pixels[polyline, :, 0], pixels[polyline, :, 1], in_front[polyline]
        travelled[0] = 0.0
        for position in range(1, count):
            step_px = math.hypot(x[position] - x[position - 1], y[position] - y[position - 1])
            if not (front[position] and front[position - 1] and math.isfinite(step_px)):
                step_px = unseen_px
            # In order, as np.cumsum adds; its first element is the first step itself, which 0.0 + step is too
            # (no step is −0.0: hypot is never, and neither is segment_px + 1 in round-to-nearest).
            travelled[position] = travelled[position - 1] + step_px
        row = keep[polyline]
        for position in range(count):
            start, end = first[position], last[position]
            length = travelled[end] - travelled[start]
            chord_x, chord_y = x[end] - x[start], y[end] - y[start]
            curve = length * length - chord_x * chord_x - chord_y * chord_y  # L² − c²
            row[position] = (length > segment_px) | (curve > curve_limit_px2) | always[position]
        row[0] = True
        row[count - 1] = True
    return keep
