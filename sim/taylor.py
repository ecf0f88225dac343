"""The scalar coefficients of the SO(3) maps, exact to rounding at every angle, including zero.

With ``a = |v|`` (math.md §Rodrigues):

    s1(a) = sin a / a                       R(v)   = 1 + s1 [v] + s2 [v]²
    s2(a) = (1 − cos a) / a²                Jl(v)  = 1 + s2 [v] + s3 [v]²
    s3(a) = (a − sin a) / a³                Jl⁻¹(v) = 1 − ½ [v] + c [v]²
    c(a)  = (1 − (a/2) cot(a/2)) / a²

All of them are even functions of ``a``, so they take ``a²`` and need no square root near zero. Below
``a = 1`` they are evaluated by their Taylor polynomials in ``a²`` (no cancellation, no division); above, by the
closed forms, written without cancellation where it matters (``1 − cos a = 2 sin²(a/2)``).

Seed 003 stops its polynomials at ``a⁶`` and switches at ``a = 0.5``; that is exact in float32 but leaves errors of
1e-8 in float64. Here the polynomials run until the next term is below float64 rounding over the whole branch,
and the branch extends to ``a = 1`` because ``(a − sin a)/a³`` still loses a digit to cancellation at 0.5.

The functions use only arithmetic, comparisons and ``np.where``/``np.sqrt``/``np.sin``/``np.cos``, so they also run
on ``sim.dual.Dual`` arrays (forward-mode derivatives).
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np

__all__ = ["TAYLOR_BRANCH_ANGLE_SQ", "rodrigues_coefficients", "left_jacobian_inv_coefficient"]

TAYLOR_BRANCH_ANGLE_SQ = 1.0
"""Below this ``a²`` the coefficients come from their Taylor polynomials."""

_TERMS = 11


def _bernoulli_numbers(count: int) -> list[Fraction]:
    """``B_0 … B_{count−1}`` (with ``B_1 = −½``), exactly, from ``Σ_{k<n} C(n+1, k) B_k = −(n+1) B_n``."""
    numbers = [Fraction(1)]
    for n in range(1, count):
        total = sum(
            (Fraction(factorial(n + 1), factorial(k) * factorial(n + 1 - k)) * numbers[k] for k in range(n)),
            Fraction(0),
        )
        numbers.append(-total / (n + 1))
    return numbers


# Coefficients of a²ᵏ, k = 0 … _TERMS − 1, highest first for Horner's rule.
_S1 = np.array([(-1) ** k / factorial(2 * k + 1) for k in range(_TERMS)][::-1])
_S2 = np.array([(-1) ** k / factorial(2 * k + 2) for k in range(_TERMS)][::-1])
_S3 = np.array([(-1) ** k / factorial(2 * k + 3) for k in range(_TERMS)][::-1])
# x cot x = Σₙ (−1)ⁿ B₂ₙ (2x)²ⁿ / (2n)!, so with x = a/2:  c(a) = −Σ_{n≥1} (−1)ⁿ B₂ₙ a²ⁿ⁻² / (2n)!.
# This series converges only for a < 2π, slower than the others: at a = 1 it needs ~12 terms.
_BERNOULLI = _bernoulli_numbers(2 * _TERMS + 4)
_C = np.array([float(-((-1) ** n) * _BERNOULLI[2 * n] / factorial(2 * n)) for n in range(1, _TERMS + 2)][::-1])


def _horner(coefficients: np.ndarray, x):
    result = coefficients[0] + 0.0 * x
    for coefficient in coefficients[1:]:
        result = result * x + coefficient
    return result


def rodrigues_coefficients(angle_sq):
    """``(s1, s2, s3)`` of math.md at ``a² = angle_sq`` (any shape, float or Dual).

    ``s1 = sin a / a``, ``s2 = (1 − cos a)/a²``, ``s3 = (a − sin a)/a³``; all exact to a few ulp for every
    ``a ≥ 0``, with their limits ``1, ½, ⅙`` at ``a = 0``.
    """
    small = angle_sq < TAYLOR_BRANCH_ANGLE_SQ
    # The closed forms see a safe angle in the Taylor branch, so no 0/0 is ever formed.
    safe_sq = np.where(small, TAYLOR_BRANCH_ANGLE_SQ, angle_sq)
    a = np.sqrt(safe_sq)
    sin_a = np.sin(a)
    sin_half = np.sin(0.5 * a)
    # Likewise the series sees 0 outside its branch, so a huge angle never overflows a power of it.
    series_sq = np.where(small, angle_sq, 0.0)
    s1 = np.where(small, _horner(_S1, series_sq), sin_a / a)
    s2 = np.where(small, _horner(_S2, series_sq), 2.0 * sin_half * sin_half / safe_sq)
    s3 = np.where(small, _horner(_S3, series_sq), (a - sin_a) / (safe_sq * a))
    return s1, s2, s3


def left_jacobian_inv_coefficient(angle_sq):
    """``c(a) = (1 − (a/2) cot(a/2)) / a²`` at ``a² = angle_sq``: the ``[v]²`` coefficient of ``Jl⁻¹(v)``.

    Limit ``1/12`` at zero; singular at ``a = 2π`` (where ``Jl`` is not invertible).
    """
    small = angle_sq < TAYLOR_BRANCH_ANGLE_SQ
    safe_sq = np.where(small, TAYLOR_BRANCH_ANGLE_SQ, angle_sq)
    half = 0.5 * np.sqrt(safe_sq)
    closed = (1.0 - half * np.cos(half) / np.sin(half)) / safe_sq
    return np.where(small, _horner(_C, np.where(small, angle_sq, 0.0)), closed)
