"""The rotation group SO(3): hat/vee, exponential and logarithm, Jacobians, nearest rotation.

Rotation vectors ``v`` are ``(..., 3)`` (axis ``v/|v|``, angle ``a = |v|`` in radians), matrices ``(..., 3, 3)``,
float64, vectorised over leading batch axes. Formulas and names follow math.md §Rodrigues:

    R(v)  = exp([v]) = 1 + s1 [v] + s2 [v]²
    Jl(v) = 1 + s2 [v] + s3 [v]²          Jr(v) = Jl(−v) = R(v)ᵀ Jl(v)
    d/dt R(v(t)) = R(v) [Jr(v) v̇] = [Jl(v) v̇] R(v)

The coefficients come from :mod:`sim.taylor`, exact at every angle. ``hat``, ``exp_so3`` and the Jacobians use
only operations that :class:`sim.dual.Dual` supports, so they can be differentiated by dual numbers.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.quaternion import quat_from_matrix, quat_log
from spinlab.sim.taylor import left_jacobian_inv_coefficient, rodrigues_coefficients

__all__ = [
    "hat",
    "vee",
    "exp_so3",
    "log_so3",
    "left_jacobian_so3",
    "right_jacobian_so3",
    "left_jacobian_inv_so3",
    "right_jacobian_inv_so3",
    "nearest_rotation",
]


def hat(v):
    """Cross-product matrix ``[v]`` of ``(..., 3)`` vectors: ``[v] x = v × x``. Returns ``(..., 3, 3)``."""
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    zero = 0.0 * x
    return np.stack(
        [np.stack([zero, -z, y], axis=-1), np.stack([z, zero, -x], axis=-1), np.stack([-y, x, zero], axis=-1)],
        axis=-2,
    )


def vee(M: np.ndarray) -> np.ndarray:
    """Inverse of :func:`hat`: the vector of the skew-symmetric part of ``(..., 3, 3)`` matrices."""
    return 0.5 * np.stack(
        [M[..., 2, 1] - M[..., 1, 2], M[..., 0, 2] - M[..., 2, 0], M[..., 1, 0] - M[..., 0, 1]], axis=-1
    )


def _quadratic_form(v, coefficient_1, coefficient_2, sign: float = 1.0):
    """``1 + sign·coefficient_1 [v] + coefficient_2 [v]²``, using ``[v]² = v vᵀ − a² 1``."""
    angle_sq = np.sum(v * v, axis=-1)
    identity_part = (1.0 - coefficient_2 * angle_sq)[..., None, None] * np.eye(3)
    outer = v[..., :, None] * v[..., None, :]
    return identity_part + (sign * coefficient_1)[..., None, None] * hat(v) + coefficient_2[..., None, None] * outer


def exp_so3(v):
    """Rotation matrix ``R(v) = exp([v])`` of rotation vectors ``(..., 3)`` by Rodrigues' formula."""
    s1, s2, _ = rodrigues_coefficients(np.sum(v * v, axis=-1))
    return _quadratic_form(v, s1, s2)


def left_jacobian_so3(v):
    """Left Jacobian ``Jl(v) = ∫₀¹ R(sv) ds`` (seed 003's ``T(v)``); ``d/dt R(v) = [Jl(v) v̇] R(v)``."""
    _, s2, s3 = rodrigues_coefficients(np.sum(v * v, axis=-1))
    return _quadratic_form(v, s2, s3)


def right_jacobian_so3(v):
    """Right Jacobian ``Jr(v) = Jl(−v)``; ``d/dt R(v) = R(v) [Jr(v) v̇]``."""
    _, s2, s3 = rodrigues_coefficients(np.sum(v * v, axis=-1))
    return _quadratic_form(v, s2, s3, sign=-1.0)


def left_jacobian_inv_so3(v):
    """``Jl(v)⁻¹ = 1 − ½[v] + c(a)[v]²``, for angles ``a < 2π`` (math.md; coefficient in :mod:`sim.taylor`)."""
    angle_sq = np.sum(v * v, axis=-1)
    return _quadratic_form(v, 0.5 + 0.0 * angle_sq, left_jacobian_inv_coefficient(angle_sq), sign=-1.0)


def right_jacobian_inv_so3(v):
    """``Jr(v)⁻¹ = Jl(−v)⁻¹ = 1 + ½[v] + c(a)[v]²``, for angles ``a < 2π``."""
    angle_sq = np.sum(v * v, axis=-1)
    return _quadratic_form(v, 0.5 + 0.0 * angle_sq, left_jacobian_inv_coefficient(angle_sq))


def log_so3(R: np.ndarray) -> np.ndarray:
    """Rotation vector ``v`` with ``exp_so3(v) = R`` and ``|v| ≤ π``, for rotation matrices ``(..., 3, 3)``.

    Goes through the quaternion (Shepperd's method, then ``2 atan2(|u|, w)``), which is accurate for every angle:
    near zero, where the skew part of ``R`` is all there is, and near ``π``, where the skew part vanishes and the
    axis lives in the symmetric part. At exactly ``π`` either of ``±v`` is returned.
    """
    return quat_log(quat_from_matrix(R))


def nearest_rotation(M: np.ndarray) -> np.ndarray:
    """The rotation closest to ``(..., 3, 3)`` matrices ``M`` in the Frobenius norm (seed 004, Method 2).

    It is the orthogonal polar factor ``M (MᵀM)^(−1/2) = U Vᵀ`` from the SVD ``M = U Σ Vᵀ``. When ``det M < 0`` the
    polar factor is a reflection; flipping the sign of the last column of ``U`` (the smallest singular value) gives
    the nearest proper rotation instead.
    """
    U, _, Vt = np.linalg.svd(M)
    sign = np.sign(np.linalg.det(U @ Vt))
    U = U.copy()
    U[..., :, 2] *= sign[..., None]
    return U @ Vt
