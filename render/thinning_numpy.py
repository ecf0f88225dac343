"""render/overlays.py ``trail_keep`` in numpy operations over the whole (P, T) batch: the formulation the compiled loops
of render/thinning.py replaced and match bit for bit (tests/render/test_thinning.py), kept as the path the window
takes while that kernel is still compiling (sim/compiled.py), and as the tests' reference.
"""

from __future__ import annotations

import numpy as np

__all__ = ["trail_keep_reference"]


def trail_keep_reference(
    pixels: np.ndarray,
    in_front: np.ndarray,
    index: np.ndarray,
    stride: int,
    *,
    segment_px: float,
    error_px: float,
    max_stride: int,
) -> np.ndarray:
    """(P, T) bool: render/overlays.py ``trail_keep`` (same arguments, same result) with numpy operations over the
    whole (P, T) batch."""
    count = pixels.shape[1]
    x, y = np.ascontiguousarray(pixels[..., 0]), np.ascontiguousarray(pixels[..., 1])
    step_px = np.hypot(np.diff(x, axis=1), np.diff(y, axis=1))  # (P, T − 1): the distance to the next sample
    # A step from or to a tip behind the eye counts as longer than any path may be, so its samples are kept.
    seen = in_front[:, 1:] & in_front[:, :-1] & np.isfinite(step_px)
    travelled = np.zeros(x.shape)  # along the trail from its oldest sample: a path's length in two look-ups
    np.cumsum(np.where(seen, step_px, segment_px + 1.0), axis=1, out=travelled[:, 1:])
    level = np.asarray(index) // stride
    half = np.where(level > 0, level & -level, max_stride)  # 2^j: the largest power of two dividing level
    position = np.arange(count)
    first, last = np.maximum(position - half, 0), np.minimum(position + half, count - 1)
    length = travelled[:, last] - travelled[:, first]
    curve = length**2 - (x[:, last] - x[:, first]) ** 2 - (y[:, last] - y[:, first]) ** 2  # L² − c²
    keep = (length > segment_px) | (curve > 2.0 * error_px**2) | (half >= max_stride)
    keep[:, [0, -1]] = True
    return keep
