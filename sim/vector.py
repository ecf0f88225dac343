"""Small vector operations over ``(..., 3)`` arrays, written component-wise.

``np.cross`` spends most of its time on axis bookkeeping for a handful of vectors; these run in a fraction of its
time and, using only indexing, arithmetic and ``np.stack``, also on :class:`sim.dual.Dual` arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cross", "dot", "Vec3", "Quat", "Mat3"]

# The array shapes the signatures name, defined once: a single value or a stack of them (the leading axes), in the
# frame the value's name says (omega_world, L_body, ...).
Vec3 = np.ndarray  # (..., 3)
Quat = np.ndarray  # (..., 4), (w, x, y, z)
Mat3 = np.ndarray  # (..., 3, 3)


def cross(a, b):
    """``a × b`` for ``(..., 3)`` arrays (broadcasting over the leading axes)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def dot(a, b):
    """``a · b`` over the last axis of ``(..., 3)`` arrays; shape ``(...)``."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]
