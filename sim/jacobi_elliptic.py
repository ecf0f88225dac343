"""Jacobi's elliptic functions sn, cn, dn and Legendre's integral F, exact to rounding as the parameter m → 1.

``scipy.special.ellipj`` takes the parameter ``m`` alone. Near ``m = 1`` the complementary parameter
``m₁ = 1 − m`` then keeps only the absolute rounding of ``m`` (1e-16), and the quarter period
``K ≈ ½ ln(16/m₁)`` inherits it: at ``m₁ = 1e-8`` scipy's values are off by 3e-13 for ``|u| ≤ K`` and by 5e-9
at ``|u| ≈ 3K`` (measured against mpmath; the functions here stay within 3e-15). A torque-free body near its
separatrix is exactly that case, so every function here takes ``m`` and ``m₁`` separately; the caller computes
both without cancellation (``sim/euler_poinsot.py`` gets them from the invariants of the motion).

Method (DLMF §22.7, §22.4, §19.25):

- The argument is reduced to ``|r| ≤ K`` by the half-period ``2K`` (``sn, cn`` change sign, ``dn`` does not).
- Gauss's descending transformation lowers the modulus ``k = √m`` to ``k₁ = (1 − k′)/(1 + k′)`` (``k′ = √m₁``)
  and the argument to ``v/(1 + k₁)`` until ``k`` is below 1e-9, where ``sn = sin``, ``cn = cos`` to rounding, and
  climbs back with ``sn = (1 + k₁) s / (1 + k₁ s²)``, ``cn = c d / (1 + k₁ s²)``,
  ``dn = ((1 − k₁) + k₁ c²) / (1 + k₁ s²)`` (``s, c, d`` at the lower modulus), all without cancellation.
- ``F(φ | m) = sin φ R_F(cos² φ, cos² φ + m₁ sin² φ, 1)`` (Carlson's form, ``|φ| ≤ π/2``).

At ``m₁ = 0`` the functions are ``tanh`` and ``sech`` and ``K`` is infinite.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ellipkm1, elliprf

__all__ = ["quarter_period", "reduce_by_half_period", "jacobi_sn_cn_dn", "legendre_f"]

# Below this modulus sn(v|k) = sin v − (k²/4)(v − sin v cos v) cos v + O(k⁴): the k² term is under rounding.
_BASE_MODULUS = 1e-9


def quarter_period(m_complement: float) -> float:
    """The complete elliptic integral ``K(m)`` (the quarter period of sn) from ``m₁ = 1 − m``; ``inf`` at ``m₁ = 0``.

    ``scipy.special.ellipkm1`` takes ``m₁`` itself, so it stays exact as ``m → 1``.
    """
    return float(ellipkm1(m_complement))


def reduce_by_half_period(u: np.ndarray, K: float) -> tuple[np.ndarray, np.ndarray]:
    """Split ``u = 2K j + r`` with integer ``j`` and ``|r| ≤ K``. Returns ``(j, r)``, float arrays of ``u``'s shape.

    With ``K = inf`` (the separatrix) ``j = 0`` and ``r = u``.
    """
    u = np.asarray(u, dtype=float)
    if not np.isfinite(K):
        return np.zeros_like(u), u
    half_periods = np.rint(u / (2.0 * K))
    return half_periods, u - 2.0 * K * half_periods


def _descending_moduli(m, m_complement) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Moduli ``k₀ = √m, k₁, …`` of Gauss's descending chain down to ``_BASE_MODULUS``, the ``1 − kₙ``, and
    whether each level applies, for ``m`` and ``m₁`` of any (broadcast) shape: a body whose chain ends earlier
    keeps its last modulus and skips the later levels (``active`` false), so every body's values are those of
    its own chain.

    ``kₙ₊₁ = kₙ² / (1 + k′ₙ)²`` (equal to ``(1 − k′ₙ)/(1 + k′ₙ)`` without the subtraction),
    ``k′ₙ₊₁ = 2 √k′ₙ / (1 + k′ₙ)`` and ``1 − kₙ₊₁ = 2 k′ₙ / (1 + k′ₙ)``, so no step loses digits, however close
    ``k`` is to 1.
    """
    modulus = np.sqrt(np.asarray(m, dtype=float))
    complement = np.sqrt(np.asarray(m_complement, dtype=float))
    modulus, complement = np.broadcast_arrays(modulus, complement)
    moduli, one_minus, active = [modulus], [np.full(modulus.shape, np.nan)], [np.ones(modulus.shape, dtype=bool)]
    going = modulus > _BASE_MODULUS
    while going.any():
        moduli.append(np.where(going, moduli[-1] ** 2 / (1.0 + complement) ** 2, moduli[-1]))
        one_minus.append(2.0 * complement / (1.0 + complement))
        active.append(going)
        complement = np.where(going, 2.0 * np.sqrt(complement) / (1.0 + complement), complement)
        going = going & (moduli[-1] > _BASE_MODULUS)
    return moduli, one_minus, active


def _sn_cn_dn_reduced(v: np.ndarray, m, m_complement):
    """``sn, cn, dn`` for ``|v| ≤ K`` (``0 < m₁``) by the descending transformation (DLMF 22.7.1–22.7.3);
    ``m`` and ``m₁`` scalars or arrays broadcast with ``v`` (one chain per body)."""
    moduli, one_minus, active = _descending_moduli(m, m_complement)
    # The argument at each level: v_{n+1} = v_n / (1 + k_{n+1}).
    scale = 1.0
    for modulus, applies in zip(moduli[1:], active[1:], strict=True):
        scale = np.where(applies, scale * (1.0 + modulus), scale)
    base = v / scale
    k_base = moduli[-1]
    sn, cn = np.sin(base), np.cos(base)
    dn = np.sqrt(1.0 - (k_base * sn) ** 2)
    for level in range(len(moduli) - 1, 0, -1):
        k1, applies = moduli[level], active[level]
        denominator = 1.0 + k1 * sn * sn
        new_sn, new_cn, new_dn = (
            (1.0 + k1) * sn / denominator,
            cn * dn / denominator,
            (one_minus[level] + k1 * cn * cn) / denominator,
        )
        sn, cn, dn = np.where(applies, new_sn, sn), np.where(applies, new_cn, cn), np.where(applies, new_dn, dn)
    return sn, cn, dn


def jacobi_sn_cn_dn(u: np.ndarray, m: float, m_complement: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jacobi's ``sn(u|m), cn(u|m), dn(u|m)`` for real ``u`` of any shape, ``0 ≤ m ≤ 1``, ``m₁ = 1 − m``.

    ``m`` and ``m_complement`` must both be given accurately (neither computed as one minus the other when it is
    small). Absolute error a few ulps for ``|u|`` up to a few periods (the reduction by ``2K`` costs
    ``ulp(u)``). Returns three arrays of ``u``'s shape.
    """
    u = np.asarray(u, dtype=float)
    if m_complement == 0.0:
        # sech u = 2 e^{−|u|} / (1 + e^{−2|u|}) does not overflow for large |u|.
        decay = np.exp(-np.abs(u))
        sech = 2.0 * decay / (1.0 + decay * decay)
        return np.tanh(u), sech, sech.copy()
    half_periods, r = reduce_by_half_period(u, quarter_period(m_complement))
    sn, cn, dn = _sn_cn_dn_reduced(r, m, m_complement)
    sign = 1.0 - 2.0 * np.mod(half_periods, 2.0)
    return sign * sn, sign * cn, dn


def legendre_f(sin_amplitude: np.ndarray, cos_amplitude: np.ndarray, m_complement: float) -> np.ndarray:
    """Legendre's incomplete integral ``F(φ | m) = ∫₀^φ dθ / √(1 − m sin² θ)`` for ``|φ| ≤ π/2``.

    Takes ``sin φ`` and ``cos φ ≥ 0``, both possibly scaled by one positive factor, rather than ``φ``: the caller's
    ratios are used as they are. ``F = u`` inverts ``sn u = sin φ``, ``cn u = cos φ``. For ``m₁ > 0``,
    ``1 − m sin² φ`` is written ``cos² φ + m₁ sin² φ`` (no cancellation), DLMF 19.25.5; at ``m₁ = 0``,
    ``F = atanh(sin φ) = asinh(tan φ)``, written so that a tiny ``cos φ`` (a state next to the saddle) does
    not underflow.
    """
    s = np.asarray(sin_amplitude, dtype=float)
    c = np.asarray(cos_amplitude, dtype=float)
    if m_complement == 0.0:
        return np.arcsinh(s / c)
    norm = np.hypot(s, c)
    s, c = s / norm, c / norm
    c_sq = c * c
    return s * elliprf(c_sq, c_sq + m_complement * s * s, 1.0)
