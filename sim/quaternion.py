"""Unit quaternions for rotation.

Layout: ``(w, x, y, z)``, scalar first. A quaternion ``q`` is unit and maps body to world:
``v_world = q v_body q*`` (math.md §Notation). Every function is vectorised over leading batch axes:
quaternions are ``(..., 4)``, vectors ``(..., 3)``, matrices ``(..., 3, 3)``, all float64.

The products follow Hamilton's convention, so ``quat_mul(p, q)`` rotates by ``q`` first and then by ``p``, the
same order as the matrix product ``R(p) R(q)``.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.taylor import rodrigues_coefficients
from spinlab.sim.vector import cross

__all__ = [
    "quat_identity",
    "quat_mul",
    "quat_conj",
    "quat_normalize",
    "quat_rotate",
    "quat_to_matrix",
    "quat_from_matrix",
    "quat_exp",
    "quat_exp_third_order",
    "quat_exp_minus_one",
    "compensated_step",
    "quat_log",
    "quat_midpoint",
    "quat_canonical",
]


def quat_identity(shape: tuple[int, ...] = ()) -> np.ndarray:
    """The identity rotation ``(1, 0, 0, 0)``, broadcast to ``shape + (4,)``."""
    q = np.zeros(shape + (4,))
    q[..., 0] = 1.0
    return q


def quat_mul(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product ``p ⊗ q`` of ``(..., 4)`` quaternions: rotate by ``q``, then by ``p``.

    ``(pw, pv)(qw, qv) = (pw qw − pv·qv, pw qv + qw pv + pv × qv)``, written component-wise (about half the time of
    slices, a sum and a concatenation, for one quaternion or 10⁵). The dot product is summed as ``np.sum`` sums
    three terms, from +0.0 and in order, and the vector part as ``(pw qv + qw pv) + pv × qv``: the bits of the
    vectorised form, zeros' signs included."""
    pw, px, py, pz = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    qw, qx, qy, qz = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            pw * qw - (((0.0 + px * qx) + py * qy) + pz * qz),
            (pw * qx + qw * px) + (py * qz - pz * qy),
            (pw * qy + qw * py) + (pz * qx - px * qz),
            (pw * qz + qw * pz) + (px * qy - py * qx),
        ],
        axis=-1,
    )


def quat_conj(q: np.ndarray) -> np.ndarray:
    """Conjugate ``(w, −x, −y, −z)``: the inverse rotation of a unit quaternion (in ``q``'s own float type: an
    engine's float32 step stays float32)."""
    q = np.asarray(q)
    return q * np.array([1.0, -1.0, -1.0, -1.0], dtype=q.dtype if q.dtype.kind == "f" else np.float64)


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """``q / |q|``; the caller guarantees ``q ≠ 0`` (scene validation rejects a zero quaternion)."""
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_canonical(q: np.ndarray) -> np.ndarray:
    """The representative of ``±q`` with ``w ≥ 0`` (both encode the same rotation)."""
    return np.where(q[..., :1] < 0.0, -q, q)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate ``(..., 3)`` vectors ``v`` by unit quaternions ``q``: ``q v q*``.

    Uses ``v' = v + 2 w (u × v) + 2 u × (u × v)`` with ``u`` the vector part, which needs no
    quaternion products and stays accurate for unit ``q``.
    """
    w, u = q[..., :1], q[..., 1:]
    t = 2.0 * cross(u, v)
    return v + w * t + cross(u, t)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix ``(..., 3, 3)`` of unit quaternions ``(..., 4)`` (body → world)."""
    w, x, y, z = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    rows = [
        [1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)],
        [2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)],
        [2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)],
    ]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def quat_from_matrix(R: np.ndarray) -> np.ndarray:
    """Unit quaternion ``(..., 4)`` with ``w ≥ 0`` of rotation matrices ``(..., 3, 3)``.

    Shepperd's method: of the four expressions ``4w² = 1 + tr R``, ``4x² = 1 + 2R₀₀ − tr R`` and so on, take
    the largest, so the one square root and the division by it never lose precision, for any rotation.
    """
    R = np.asarray(R, dtype=float)
    trace = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    # Candidates for 4·(component)², one per quaternion component w, x, y, z.
    squares = np.stack(
        [
            1.0 + trace,
            1.0 + 2.0 * R[..., 0, 0] - trace,
            1.0 + 2.0 * R[..., 1, 1] - trace,
            1.0 + 2.0 * R[..., 2, 2] - trace,
        ],
        axis=-1,
    )
    pivot = np.argmax(squares, axis=-1)
    # Off-diagonal sums and differences: 4wx, 4wy, 4wz, 4xy, 4xz, 4yz.
    d_x = R[..., 2, 1] - R[..., 1, 2]
    d_y = R[..., 0, 2] - R[..., 2, 0]
    d_z = R[..., 1, 0] - R[..., 0, 1]
    s_xy = R[..., 1, 0] + R[..., 0, 1]
    s_xz = R[..., 0, 2] + R[..., 2, 0]
    s_yz = R[..., 2, 1] + R[..., 1, 2]
    big = np.take_along_axis(squares, pivot[..., None], axis=-1)[..., 0]
    four_times = 2.0 * np.sqrt(np.maximum(big, 0.0))  # 4·|pivot component|
    # Rows: the quaternion scaled by 4·(pivot component), for each possible pivot.
    candidates = np.stack(
        [
            np.stack([big, d_x, d_y, d_z], axis=-1),
            np.stack([d_x, big, s_xy, s_xz], axis=-1),
            np.stack([d_y, s_xy, big, s_yz], axis=-1),
            np.stack([d_z, s_xz, s_yz, big], axis=-1),
        ],
        axis=-2,
    )
    chosen = np.take_along_axis(candidates, pivot[..., None, None], axis=-2)[..., 0, :]
    q = chosen / four_times[..., None]
    return quat_canonical(quat_normalize(q))


def quat_exp(rotation_vector: np.ndarray) -> np.ndarray:
    """Exact unit quaternion of a rotation vector: ``exp(v/2) = (cos(a/2), sin(a/2) v/a)``, ``a = |v|``.

    ``sin(a/2)/a`` is ``s1(a/2)/2`` of math.md, evaluated by its Taylor branch near zero.
    """
    half = 0.5 * np.asarray(rotation_vector, dtype=float)
    half_angle_sq = np.sum(half * half, axis=-1)
    s1, s2, _ = rodrigues_coefficients(half_angle_sq)
    # cos b = 1 − b² s2(b) is exact to rounding for small b, and equals cos b for any b.
    w = 1.0 - half_angle_sq * s2
    return np.concatenate([w[..., None], s1[..., None] * half], axis=-1)


def quat_exp_minus_one(rotation_vector: np.ndarray) -> np.ndarray:
    """``exp(v/2) − 1`` (``(..., 4)``): :func:`quat_exp` less the identity, each part to an ulp of itself
    (``cos b − 1 = −b² s2(b)``, never a difference of nearly equal numbers): a turn as the small increment
    :func:`compensated_step` adds."""
    half = 0.5 * np.asarray(rotation_vector, dtype=float)
    half_angle_sq = np.sum(half * half, axis=-1)
    s1, s2, _ = rodrigues_coefficients(half_angle_sq)
    return np.concatenate([(-(half_angle_sq * s2))[..., None], s1[..., None] * half], axis=-1)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: ``(s, e)``, ``s = fl(a + b)``, ``a + b = s + e`` exactly."""
    total = a + b
    bb = total - a
    return total, (a - (total - bb)) + (b - bb)


def compensated_step(
    q_high: np.ndarray, q_low: np.ndarray, left: np.ndarray | None, right: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """``C ⊗ q ⊗ B`` of the double-double orientation ``q = q_high + q_low`` (N, 4), with ``C = 1 + left`` and
    ``B = 1 + right`` (N, 4) given by their small differences from 1 (``None``: no turn on that side): the
    increment ``δ = (C − 1) ⊗ q ⊗ B + q ⊗ (B − 1)`` is summed in float64 (to an ulp of ``δ``, not of ``q``), the
    norm set back to 1 to first order (a radial nudge, no turn), and ``δ`` added by compensated summation, so the
    rounding of ``q`` does not pile up over steps. Returns ``(high, low)``, ``|low|`` at most half an ulp of
    ``high``. A ``q`` off unit length by more than 1e-8 is normalised in float64 instead, its low part zero.
    The numpy reference of :func:`sim.integrators._kernels.compensated_step` (same steps, not the same bits)."""
    delta = np.zeros_like(q_high)
    if right is not None:
        delta = quat_mul(q_high, right) + quat_mul(q_low, right)
    if left is not None:
        delta = (delta + quat_mul(left, q_high)) + quat_mul(left, q_low + delta)
    excess = (
        (np.sum(q_high * q_high, axis=-1) - 1.0)
        + 2.0 * np.sum(q_high * (q_low + delta), axis=-1)
        + np.sum(delta * delta, axis=-1)
    )[..., None]
    total, error = _two_sum(q_high, delta - 0.5 * excess * (q_high + delta))
    error = error + q_low
    high = total + error
    low = error - (high - total)
    far_off = ~(np.abs(excess[..., 0]) <= 1e-8)
    if far_off.any():
        high[far_off] = quat_normalize(q_high[far_off] + q_low[far_off] + delta[far_off])
        low[far_off] = 0.0
    return high, low


def quat_exp_third_order(rotation_vector: np.ndarray) -> np.ndarray:
    """Seed 000's trig-free, normalised third-order quaternion exponential of a rotation vector.

    With ``X = v/2`` (an imaginary quaternion), math.md gives
    ``exp(X) ≈ ((1 − |X|²/2) + (1 − |X|²/6) X) / sqrt((1 − |X|²/2)² + (1 − |X|²/6)² |X|²)``:
    the series truncated after the cubic term and then normalised, so the result is always a unit quaternion.
    Only the angle is approximated (the axis is exact), with an error of O(|v|⁵).
    """
    half = 0.5 * np.asarray(rotation_vector, dtype=float)
    x2 = np.sum(half * half, axis=-1)
    w = 1.0 - 0.5 * x2
    k = 1.0 - x2 / 6.0
    norm = np.sqrt(w * w + k * k * x2)
    return np.concatenate([(w / norm)[..., None], (k / norm)[..., None] * half], axis=-1)


def quat_midpoint(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The geodesic midpoint of unit quaternions ``p`` and ``q`` (..., 4) on the shorter arc: the slerp at ½,
    ``p ⊗ exp(½ log(p* ⊗ q))``, which is ``(p ± q)/|p ± q|`` (the sign of ``p·q``, the scalar part of ``p* ⊗ q``:
    ``p`` and ``q`` span one great circle, and their normalised sum bisects it). Six array operations where the
    exponential and logarithm take ~50; equal to them to rounding."""
    dot = np.sum(p * q, axis=-1, keepdims=True)
    total = p + np.where(dot < 0.0, -q, q)
    return total / np.sqrt(np.sum(total * total, axis=-1, keepdims=True))


def quat_log(q: np.ndarray) -> np.ndarray:
    """Rotation vector ``v`` with ``quat_exp(v) = ±q``, ``|v| ≤ π`` (the inverse of :func:`quat_exp`).

    ``v = 2 atan2(|u|, w) u/|u|`` on the ``w ≥ 0`` representative; near zero ``2 atan2(s, w)/s → 2/w``, whose
    Taylor expansion in ``s² `` avoids the division.
    """
    q = quat_canonical(q)
    w, u = q[..., 0], q[..., 1:]
    s2 = np.sum(u * u, axis=-1)
    s = np.sqrt(s2)
    small = s2 < 1e-12
    safe_s = np.where(small, 1.0, s)
    # A small |u| means w ≈ 1 on a unit quaternion; where it is not (w = 0 too: not a rotation), 1 keeps the series
    # from dividing by zero.
    safe_w = np.where(small & (w != 0.0), w, 1.0)
    # For tiny s, atan2(s, w)/s = (1/w)(1 − s²/(3w²)) + O(s⁴) with w ≈ 1.
    factor = np.where(small, (1.0 - s2 / (3.0 * safe_w * safe_w)) / safe_w, np.arctan2(s, w) / safe_s)
    return 2.0 * factor[..., None] * u
