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
- ``Π(n; φ | m)`` for ``n < 0`` by DLMF 19.7.9 (its conjugate ``m/n``), for the precession angle of a nearly
  symmetric body (:func:`legendre_pi_by_conjugate`).

At ``m₁ = 0`` the functions are ``tanh`` and ``sech`` and ``K`` is infinite.

Carlson's ``R_F``, ``R_J``, ``R_C`` and ``K`` are sim/carlson.py's: within ½ ulp of mpmath on the closed forms'
own arguments and on a broad sample (tests/sim/test_carlson.py), where scipy.special's were up to 3.4, 6.7, 3.2 and
1.6 ulps off on the same arguments, and importing scipy.special would be most of a one-body ``run``.
"""

from __future__ import annotations

import operator

import numpy as np
import numpy.typing as npt

from spinlab.sim.carlson import carlson_rc, carlson_rf, carlson_rj, complete_k_from_complement

__all__ = [
    "quarter_period",
    "reduce_by_half_period",
    "jacobi_sn_cn_dn",
    "legendre_f",
    "carlson_rj_near_saddle",
    "legendre_pi_by_conjugate",
]

# Below this modulus sn(v|k) = sin v − (k²/4)(v − sin v cos v) cos v + O(k⁴): the k² term is under rounding.
_BASE_MODULUS = 1e-9


def quarter_period(m_complement: float) -> float:
    """The complete elliptic integral ``K(m)`` (the quarter period of sn) from ``m₁ = 1 − m``; ``inf`` at ``m₁ = 0``.

    ``K = R_F(0, m₁, 1)`` takes ``m₁`` itself, so it stays exact as ``m → 1``.
    """
    return float(complete_k_from_complement(m_complement))


def reduce_by_half_period(u: npt.ArrayLike, K: float) -> tuple[np.ndarray, np.ndarray]:
    """Split ``u = 2K j + r`` with integer ``j`` and ``|r| ≤ K``. Returns ``(j, r)``, float arrays of ``u``'s shape.

    With ``K = inf`` (the separatrix) ``j = 0`` and ``r = u``.
    """
    u = np.asarray(u, dtype=float)
    if not np.isfinite(K):
        return np.zeros_like(u), u
    half_periods = np.rint(u / (2.0 * K))
    return half_periods, u - 2.0 * K * half_periods


def _descending_moduli(
    m, m_complement, power=operator.pow
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Moduli ``k₀ = √m, k₁, …`` of Gauss's descending chain down to ``_BASE_MODULUS``, the ``1 − kₙ``, and
    whether each level applies, for ``m`` and ``m₁`` of any (broadcast) shape: a body whose chain ends earlier
    keeps its last modulus and skips the later levels (``active`` false), so every body's values are those of
    its own chain.

    ``kₙ₊₁ = kₙ² / (1 + k′ₙ)²`` (equal to ``(1 − k′ₙ)/(1 + k′ₙ)`` without the subtraction),
    ``k′ₙ₊₁ = 2 √k′ₙ / (1 + k′ₙ)`` and ``1 − kₙ₊₁ = 2 k′ₙ / (1 + k′ₙ)``, so no step loses digits, however close
    ``k`` is to 1. ``power`` takes the square of ``1 + k′ₙ`` (see :func:`_sn_cn_dn_reduced`).
    """
    modulus = np.sqrt(np.asarray(m, dtype=float))
    complement = np.sqrt(np.asarray(m_complement, dtype=float))
    modulus, complement = np.broadcast_arrays(modulus, complement)
    moduli, one_minus, active = [modulus], [np.full(modulus.shape, np.nan)], [np.ones(modulus.shape, dtype=bool)]
    going = modulus > _BASE_MODULUS
    while going.any():
        moduli.append(np.where(going, moduli[-1] ** 2 / power(1.0 + complement, 2), moduli[-1]))
        one_minus.append(2.0 * complement / (1.0 + complement))
        active.append(going)
        complement = np.where(going, 2.0 * np.sqrt(complement) / (1.0 + complement), complement)
        going = going & (moduli[-1] > _BASE_MODULUS)
    return moduli, one_minus, active


def _sn_cn_dn_reduced(v: np.ndarray, m, m_complement, power=operator.pow):
    """``sn, cn, dn`` for ``|v| ≤ K`` (``0 < m₁``) by the descending transformation (DLMF 22.7.1–22.7.3);
    ``m`` and ``m₁`` scalars or arrays broadcast with ``v`` (one chain per body).

    ``power(x, 2)`` takes the squares of ``1 + k′ₙ`` and ``k sn``: for one body these are numpy float64 scalars,
    whose ``**`` is C's ``pow``, for arrays numpy's product; a batch that must give one body's bits passes
    :func:`sim.torque_free_rows.libm_power`."""
    return _ascending(v, *_descending_chain(m, m_complement, power), power=power)


def _descending_chain(m, m_complement, power=operator.pow) -> tuple[list, list, list, float | np.ndarray]:
    """:func:`_descending_moduli` and the argument's scale at the lowest level, ``Π (1 + kₙ)`` over the levels that
    apply (``v_{n+1} = v_n / (1 + k_{n+1})``): what :func:`_ascending` needs of ``m``, the same for every ``v``."""
    moduli, one_minus, active = _descending_moduli(m, m_complement, power)
    scale: float | np.ndarray = 1.0
    for modulus, applies in zip(moduli[1:], active[1:], strict=True):
        scale = np.where(applies, scale * (1.0 + modulus), scale)
    return moduli, one_minus, active, scale


def _ascending(v: np.ndarray, moduli, one_minus, active, scale, power=operator.pow):
    """``sn, cn, dn`` at ``v`` from the chain of :func:`_descending_chain`: ``sin``, ``cos`` at the lowest level,
    then up the levels that apply (``power`` as in :func:`_sn_cn_dn_reduced`)."""
    base = v / scale
    k_base = moduli[-1]
    sn, cn = np.sin(base), np.cos(base)
    dn = np.sqrt(1.0 - power(k_base * sn, 2))
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


# Below this, R_F(x, y, 1) is ln(4 / (√x + √y)) and R_J(x, y, 1, p) is R_J(0, Y, 1, p) + (3/p) ln(√Y / (√x + √y))
# at Y = this, to far better than an ulp (each error is O(x + y); checked against mpmath at x, y ~ 1e-40).
_TINY_RF_ARGUMENT = 1e-100


def carlson_rj_near_saddle(
    cn: npt.ArrayLike, sn: npt.ArrayLike, m_complement: npt.ArrayLike, p: npt.ArrayLike
) -> np.ndarray:
    """Carlson's ``R_J(cn², dn², 1, p)`` with ``dn² = cn² + m₁ sn²`` and ``p > 0`` (``cn = 0, sn = 1``: the
    complete ``R_J(0, m₁, 1, p)``), also where ``cn² + m₁ sn²`` is below :data:`_TINY_RF_ARGUMENT`: a state within
    ~1e-50 of the saddle, where ``y`` may underflow to a subnormal or 0. There ``R_J`` grows as
    ``(3/p) ln(1/(|cn| + dn))``, with ``dn = hypot(cn, √m₁ sn)`` (no underflow), from ``R_J(0, Y, 1, p)`` at
    ``Y = _TINY_RF_ARGUMENT``. Elsewhere it is :func:`sim.carlson.carlson_rj` of the arguments as written above."""

    cn, sn, m_complement, p = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (cn, sn, m_complement, p)))
    x = cn * cn
    y = x + m_complement * sn * sn
    tiny = y < _TINY_RF_ARGUMENT
    if not np.any(tiny):
        return carlson_rj(x, y, 1.0, p)
    root_y = np.hypot(cn, np.sqrt(m_complement) * sn)
    anchor = carlson_rj(0.0, _TINY_RF_ARGUMENT, 1.0, p)
    with np.errstate(divide="ignore"):
        near = anchor + 3.0 / p * (0.5 * np.log(_TINY_RF_ARGUMENT) - np.log(np.abs(cn) + root_y))
    return np.where(tiny, near, carlson_rj(x, np.where(tiny, 1.0, y), 1.0, p))


def legendre_pi_by_conjugate(
    sn: npt.ArrayLike, cn: npt.ArrayLike, m_complement: npt.ArrayLike, n: npt.ArrayLike, conjugate: npt.ArrayLike
) -> np.ndarray:
    """Legendre's ``Π(n; φ | m) = ∫₀^φ dθ / ((1 − n sin² θ) √(1 − m sin² θ))`` for ``n < 0`` and ``|φ| ≤ π/2``, from
    ``sin φ``, ``cos φ`` and the conjugate characteristic ``ω² = m/n`` (given, not formed here, so that a caller's
    ``m`` and ``n`` are used as they are).

    DLMF 19.7.9, ``Π(n; φ) + Π(ω²; φ) = F(φ) + √c R_C((c − 1)(c − m), (c − n)(c − ω²))`` with ``c = 1/sin² φ``, and
    ``Π(ω²; φ) = F(φ) + (ω²/3) sin³φ R_J(cos² φ, Δ², 1, 1 − ω² sin² φ)`` (DLMF 19.25.14), ``Δ² = cos² φ + m₁ sin² φ``:

        Π(n; φ) = −(ω²/3) sin³φ R_J(cos² φ, Δ², 1, 1 − ω² sin² φ) + sin φ R_C(cos² φ Δ², (1 − n sin² φ)(1 − ω² sin² φ)).

    ``F`` has cancelled: for ``n ≪ −1`` (``|ω²|`` small) ``Π`` is ``O(1/√|n|)`` and each term keeps its own relative
    precision, where ``F + (n/3) sin³φ R_J(…, 1 − n sin² φ)`` would leave ``Π`` as the small difference of two terms of
    size ``F``. Every argument is positive (``n, ω² ≤ 0``); ``R_C``'s second is at least 1. ``R_J`` near the saddle as
    :func:`carlson_rj_near_saddle`. With ``cos φ = 0, sin φ = 1`` it is the complete ``Π(n | m)``.
    """
    sn, cn, m_complement, n, conjugate = (np.asarray(a, dtype=float) for a in (sn, cn, m_complement, n, conjugate))
    sn2, cn2 = sn * sn, cn * cn
    rj = carlson_rj_near_saddle(cn, sn, m_complement, 1.0 - conjugate * sn2)
    rc = carlson_rc(cn2 * (cn2 + m_complement * sn2), (1.0 - n * sn2) * (1.0 - conjugate * sn2))
    return -conjugate / 3.0 * (sn * sn2) * rj + sn * rc


def legendre_f(sin_amplitude: np.ndarray, cos_amplitude: np.ndarray, m_complement) -> np.ndarray:
    """Legendre's incomplete integral ``F(φ | m) = ∫₀^φ dθ / √(1 − m sin² θ)`` for ``|φ| ≤ π/2``.

    Takes ``sin φ`` and ``cos φ ≥ 0``, both possibly scaled by one positive factor, rather than ``φ``: the caller's
    ratios are used as they are. ``F = u`` inverts ``sn u = sin φ``, ``cn u = cos φ``. For ``m₁ > 0``,
    ``1 − m sin² φ`` is written ``cos² φ + m₁ sin² φ`` (no cancellation), DLMF 19.25.5; at ``m₁ = 0``,
    ``F = atanh(sin φ) = asinh(tan φ)``, written so that a tiny ``cos φ`` (a state next to the saddle) does
    not underflow. Where ``cos² φ + m₁ sin² φ`` is below :data:`_TINY_RF_ARGUMENT` (a state within ~1e-150 of the
    saddle, ``m₁`` subnormal: scipy's ``R_F`` of such arguments was inf, and the closed form NaN),
    ``R_F(x, y, 1) = ln(4 / (√x + √y)) + O(x + y)`` (checked against mpmath: the O term is below 3e-19 at
    x, y ~ 1e-20), with ``√y = hypot(cos φ, √m₁ sin φ)`` so that nothing underflows.
    """
    s = np.asarray(sin_amplitude, dtype=float)
    c = np.asarray(cos_amplitude, dtype=float)
    m_complement = np.asarray(m_complement, dtype=float)  # one for all, or one per body (sim/exact_batch.py)
    if not np.any(m_complement):
        return np.arcsinh(s / c)
    norm = np.hypot(s, c)
    s, c = s / norm, c / norm
    c_sq = c * c
    y = c_sq + m_complement * s * s
    tiny = y < _TINY_RF_ARGUMENT
    if not np.any(tiny):
        return s * carlson_rf(c_sq, y, 1.0)
    root_y = np.hypot(c, np.sqrt(m_complement) * s)
    with np.errstate(divide="ignore"):
        near_saddle = s * np.log(4.0 / (np.abs(c) + root_y))
    return np.where(tiny, near_saddle, s * carlson_rf(c_sq, np.where(tiny, 1.0, y), 1.0))
