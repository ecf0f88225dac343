"""Closed-form Baker–Campbell–Hausdorff formula in SO(3) (Engø 2001; seed 004, Method 3).

``bch_so3(x, y)`` is the rotation vector ``z`` with ``exp([z]) = exp([x]) exp([y])``, computed without forming
any matrix. Engø writes, with unit vectors ``x̂ = x/|x|`` and ``ŷ = y/|y|``,

    z = (arcsin d / d) (a x̂ + b ŷ + c x̂ × ŷ)
    a = sin|x| cos²(|y|/2) − sin|y| sin²(|x|/2) x̂·ŷ          b = a with x and y exchanged
    c = ½ sin|x| sin|y| − 2 sin²(|x|/2) sin²(|y|/2) x̂·ŷ

where ``a x̂ + b ŷ + c x̂ × ŷ = sin|z| ẑ`` (the skew part of the product) and ``d`` is its length. Two changes make
it exact everywhere:

* Every division by ``|x|`` or ``|y|`` is folded into the coefficients of math.md, ``sin a / a = s1`` and
  ``sin²(a/2)/a² = s2/2``, which are exact at zero:
  ``a x̂ = (s1ₓ cos²(|y|/2) − ½ s1ᵧ s2ₓ x·y) x`` and ``c x̂×ŷ = ½ (s1ₓ s1ᵧ − s2ₓ s2ᵧ x·y) x × y``.
* ``arcsin d`` only reaches angles up to π/2. The angle comes instead from ``atan2(sin|z|, cos|z|)``, with
  ``cos(|z|/2) = cos(|x|/2) cos(|y|/2) − sin(|x|/2) sin(|y|/2) x̂·ŷ`` (the scalar part of the quaternion product),
  so the result is right up to ``|z| = π``.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.taylor import rodrigues_coefficients
from spinlab.sim.vector import cross

__all__ = ["bch_so3"]


def bch_so3(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Rotation vector ``z`` (``|z| ≤ π``) of ``R(x) R(y)``, for rotation vectors ``x``, ``y`` of shape ``(..., 3)``."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    x_sq = np.sum(x * x, axis=-1)
    y_sq = np.sum(y * y, axis=-1)
    x_dot_y = np.sum(x * y, axis=-1)
    s1_x, s2_x, _ = rodrigues_coefficients(x_sq)
    s1_y, s2_y, _ = rodrigues_coefficients(y_sq)
    # cos²(a/2) = 1 − sin²(a/2) = 1 − a² s2/2.
    cos_sq_half_x = 1.0 - 0.5 * x_sq * s2_x
    cos_sq_half_y = 1.0 - 0.5 * y_sq * s2_y
    coefficient_x = s1_x * cos_sq_half_y - 0.5 * s1_y * s2_x * x_dot_y
    coefficient_y = s1_y * cos_sq_half_x - 0.5 * s1_x * s2_y * x_dot_y
    coefficient_cross = 0.5 * (s1_x * s1_y - s2_x * s2_y * x_dot_y)
    # sin|z| ẑ: the vector of the skew-symmetric part of R(x) R(y).
    sin_z_axis = (
        coefficient_x[..., None] * x + coefficient_y[..., None] * y + coefficient_cross[..., None] * cross(x, y)
    )
    sin_z = np.linalg.norm(sin_z_axis, axis=-1)

    # cos(a/2) = 1 − (a/2)² s2(a/2) keeps its sign for angles above π, unlike a square root of cos²(a/2).
    half_s1_x, half_s2_x, _ = rodrigues_coefficients(0.25 * x_sq)
    half_s1_y, half_s2_y, _ = rodrigues_coefficients(0.25 * y_sq)
    cos_half_x = 1.0 - 0.25 * x_sq * half_s2_x
    cos_half_y = 1.0 - 0.25 * y_sq * half_s2_y
    # sin(a/2)/a = s1(a/2)/2, so sin(|x|/2) sin(|y|/2) x̂·ŷ = ¼ s1(|x|/2) s1(|y|/2) x·y.
    cos_half_z = cos_half_x * cos_half_y - 0.25 * half_s1_x * half_s1_y * x_dot_y
    cos_z = 2.0 * cos_half_z * cos_half_z - 1.0
    # atan2 takes the angle from sin|z| near zero and from cos|z| near π: accurate at both ends.
    angle = np.arctan2(sin_z, cos_z)
    # z = (|z| / sin|z|) · sin|z| ẑ, with |z|/sin|z| = 1 + |z|²/6 + O(|z|⁴) near zero. Near |z| = π the direction
    # of the tiny skew part is accurate only to about 1e-16 / sin|z| (Engø's form is singular there), so beyond
    # π/2 the direction comes from the vector part of the quaternion product, sin(|z|/2) ẑ, of length ≈ 1 there:
    # (cos(|x|/2), ½ s1(|x|/2) x) ⊗ (cos(|y|/2), ½ s1(|y|/2) y), on the representative with cos(|z|/2) ≥ 0.
    small = angle < 1e-4
    safe_sin = np.where(small, 1.0, sin_z)
    ratio = np.where(small, 1.0 + angle * angle / 6.0, angle / safe_sin)
    z = ratio[..., None] * sin_z_axis
    large = angle > 0.5 * np.pi
    if np.any(large):
        half_x = 0.5 * half_s1_x[..., None] * x
        half_y = 0.5 * half_s1_y[..., None] * y
        vector = cos_half_x[..., None] * half_y + cos_half_y[..., None] * half_x + cross(half_x, half_y)
        vector = np.where(cos_half_z[..., None] < 0.0, -vector, vector)
        length = np.linalg.norm(vector, axis=-1)
        safe_length = np.where(large, length, 1.0)
        z = np.where(large[..., None], (angle / safe_length)[..., None] * vector, z)
    return z
