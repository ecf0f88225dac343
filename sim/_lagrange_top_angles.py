"""The half-angle combinations of the heavy symmetric top as elliptic integrals of the third kind.

Private to :mod:`sim.lagrange_top` (its module docstring states the equations). ``(φ + ψ)/2`` and ``(φ − ψ)/2``
are each a mean rate times ``t`` plus a periodic part ``P(v)`` of the Jacobi phase ``v = λ t + v₀``
(:class:`Combination`); :func:`periodic_part` evaluates ``P`` by Carlson's ``R_J`` (or ``Π`` whole by DLMF
19.7.9 when ``n < −1``), :func:`complete_part` its growth over a half period. Angles in rad, the phase
dimensionless; the quaternions ``(w, x, y, z)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.sim.carlson import carlson_rc, carlson_rj
from spinlab.sim.exact import quat_from_zxz_halves
from spinlab.sim.vector import cross

__all__ = ["Combination", "periodic_part", "complete_part", "passages", "chain_apply", "zxz_half_angles",
           "transverse_frame"]  # fmt: skip


@dataclass(frozen=True)
class Combination:
    """One of the half-angle combinations ``(φ + ψ)/2`` (over ``1 + u``) and ``(φ − ψ)/2`` (over ``1 − u``):
    ``start + ½ rate t + ½ coefficient (P(v) − p0) + π · passages``, where ``P`` is ``G`` of
    :mod:`sim.lagrange_top`'s docstring or, when ``transformed``, ``Π(n; am v | m)`` itself (see
    :func:`periodic_part`). ``height_roots`` are ``(1 ± u1, 1 ± u2)``, ``one_minus_n`` is ``(1 ± u2)/(1 ± u1)``,
    ``conjugate`` is ``ω² = m/n`` (transformed), ``growth`` is ``P(v + 2K) − P(v)``, and ``passage`` is ``None``,
    or the offset (0 or 1, in units of K) of the phases ``v`` where the axis passes exactly through this
    combination's vertical."""

    start: float
    rate: float
    coefficient: float
    height_roots: tuple[float, float]
    one_minus_n: float
    transformed: bool
    conjugate: float
    growth: float
    p0: float
    passage: float | None


def transverse_frame(axis: np.ndarray) -> np.ndarray:
    """A right-handed frame ``(e₁, e₂, e)`` (columns, body coordinates) with ``e = axis``."""
    helper = np.zeros(3)
    helper[np.argmin(np.abs(axis))] = 1.0
    e1 = helper - (helper @ axis) * axis
    e1 /= np.linalg.norm(e1)
    return np.stack([e1, cross(axis, e1), axis], axis=-1)


def zxz_half_angles(one_plus_u, one_minus_u, half_sum, half_difference) -> np.ndarray:
    """The quaternion ``(..., 4)`` of ``Rz(φ) Rx(θ) Rz(ψ)`` from ``1 ± cos θ`` and ``(φ ± ψ)/2``
    (sim/exact.py's :func:`quat_from_zxz_euler`, with ``cos θ/2``, ``sin θ/2`` taken without cancellation)."""
    cos_half_theta, sin_half_theta = np.sqrt(0.5 * one_plus_u), np.sqrt(0.5 * one_minus_u)
    return quat_from_zxz_halves(cos_half_theta, sin_half_theta, half_sum, half_difference)


def chain_apply(chain: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``q_world_vertical ⊗ r ⊗ q_body_euler*`` as ``Σ_k r_k chain[k]``: the product is linear in ``r``."""
    return r[..., :1] * chain[0] + r[..., 1:2] * chain[1] + r[..., 2:3] * chain[2] + r[..., 3:] * chain[3]


def passages(part: Combination, half_periods, r):
    """How many passages through ``part``'s vertical lie before ``v = 2K j + r`` (up to a constant): at ``r = 0``
    for the bottom, counted from ``r = 0`` on; at ``r = ±K`` for the top, counted from ``r = −K`` on, so that a
    passage is counted exactly where the reduction puts ``v`` after it (the signs in the rates of ω agree)."""
    if part.passage == 0.0:
        return half_periods + (r >= 0.0)
    return half_periods


def periodic_part(part: Combination, half_periods, sn, sn2, cn2, m_complement: float):
    """``P(v)`` of ``part`` at ``v = 2K j + r`` from ``j`` and ``sn r``, ``sn² r``, ``cn² r``.

    Plain: ``G(v) = 3 (Π(n; am v | m) − v)/n`` (:mod:`sim.lagrange_top`'s docstring). Transformed, for
    ``n < −1``, where ``v`` and ``(n/3) G`` would cancel (an axis passing near the downward vertical): ``Π``
    itself by DLMF 19.7.9 with the conjugate ``ω² = m/n ∈ (−1, 0)``, written over ``sn² = 1/c`` as
    ``Π(n; am r) = −(ω²/3) sn³ R_J(cn², dn², 1, 1 − ω² sn²) + sn R_C(cn² dn², (1 − n sn²)(1 − ω² sn²))``.
    """
    dn2 = cn2 + m_complement * sn2
    height = cn2 + part.one_minus_n * sn2  # 1 − n sn²
    if not part.transformed:
        return 2.0 * half_periods * complete_part(part, m_complement) + sn * sn2 * carlson_rj(cn2, dn2, 1.0, height)
    conjugate = part.conjugate
    conjugate_height = cn2 + (1.0 - conjugate) * sn2  # 1 − ω² sn²
    partial = -conjugate / 3.0 * sn * sn2 * carlson_rj(cn2, dn2, 1.0, conjugate_height)
    partial = partial + sn * carlson_rc(cn2 * dn2, height * conjugate_height)
    return partial + 2.0 * half_periods * complete_part(part, m_complement)


def complete_part(part: Combination, m_complement: float) -> float:
    """``P(K)``, so that ``P(v + 2K) = P(v) + 2 P(K)``: ``R_J(0, m₁, 1, 1 − n)`` plain, the complete ``Π(n | m)``
    transformed (``R_C(0, y) = π/(2√y)``)."""
    if not part.transformed:
        return float(carlson_rj(0.0, m_complement, 1.0, part.one_minus_n))
    conjugate = part.conjugate
    rj = float(carlson_rj(0.0, m_complement, 1.0, 1.0 - conjugate))
    return -conjugate / 3.0 * rj + 0.5 * np.pi / np.sqrt(part.one_minus_n * (1.0 - conjugate))
