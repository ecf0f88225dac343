"""The complete elliptic integrals ``K(m) = R_F(0, m₁, 1)`` and ``R_J(0, m₁, 1, p)`` of many bodies together, by
the arithmetic-geometric mean: what the batched closed form (sim/exact_batch.py) takes of each body's ``m₁`` and
characteristic at its start.

Method: DLMF 19.8.1 and 19.8.6. With ``a₀ = 1``, ``g₀ = √m₁``, ``a_{j+1} = (a_j + g_j)/2``, ``g_{j+1} = √(a_j g_j)``
(their common limit the mean ``M``), and ``p₀ = √p``, ``Q₀ = 1``,

    ε_j = (p_j² − a_j g_j) / (p_j² + a_j g_j),   p_{j+1} = (p_j² + a_j g_j) / (2 p_j),   Q_{j+1} = Q_j ε_j / 2,

``K = π / (2M)`` and ``Π(n | m) = π/(4M) (2 + n/(1 − n) Σ Q_j)`` for ``p = 1 − n``; since
``Π = K + (n/3) R_J(0, m₁, 1, 1 − n)`` (DLMF 19.25.2), ``R_J(0, m₁, 1, p) = 3π Σ Q_j / (4 M p)``: no difference of
nearby terms. ``|ε_j| < 1``, so ``Σ Q_j`` is at least a third of ``Q₀`` and an ``ε_j`` that cancels (``p_j²`` next to
``a_j g_j``) is one whose term is already small against the sum. The mean converges quadratically: some 6 steps
for ``m₁ ~ 1e-4``, 14 at the least double, where the duplication of sim/carlson.py takes a dozen or more of its
costlier ones for each integral.

Precision: as sim/carlson.py, the steps run in numpy's ``longdouble`` (x86-64: 64-bit significand), whose
rounding errors over the steps are ~1e-2 ulp of the float64 result: within an ulp of mpmath's
(tests/sim/test_complete_elliptic.py), and the same double as sim/carlson.py's integrals but where the two round
either side of a midpoint. Where ``longdouble`` is float64 itself (:data:`sim.carlson.EXTENDED` false) the two are
sim/carlson.py's (scipy's integrals there).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from spinlab.sim.carlson import EXTENDED, carlson_rj, complete_k_from_complement

__all__ = ["complete_k_and_rj"]

_WIDE = np.longdouble
_PI = _WIDE("3.14159265358979323846264338327950288")
# A step's relative change below this (the wide format's epsilon) leaves the result's double unchanged.
_TOLERANCE = _WIDE(np.finfo(_WIDE).eps)
# The mean of 1 and the least double's root converges in 14 steps: the bound only stops a NaN's loop.
_MOST_STEPS = 64


def complete_k_and_rj(m_complement: npt.ArrayLike, p: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``K(m) = R_F(0, m₁, 1)`` and ``R_J(0, m₁, 1, p)`` (float64 arrays of the arguments' broadcast shape) for
    ``0 < m₁ ≤ 1`` and ``p > 0``; both ``inf`` at ``m₁ = 0``."""
    m1, p = np.broadcast_arrays(np.asarray(m_complement, dtype=float), np.asarray(p, dtype=float))
    if not EXTENDED:  # pragma: no cover (x86-64 Linux, where the tests run, has the extended format)
        return complete_k_from_complement(m1), carlson_rj(0.0, m1, 1.0, p)
    shape = m1.shape
    m1, p = m1.ravel(), p.ravel()
    infinite = m1 == 0.0
    a = np.ones(m1.shape, dtype=_WIDE)
    g = np.sqrt(np.where(infinite, 1.0, m1).astype(_WIDE))
    p_square = p.astype(_WIDE)
    root_p = np.sqrt(p_square)
    q = np.ones(m1.shape, dtype=_WIDE)
    total = np.ones(m1.shape, dtype=_WIDE)
    for _ in range(_MOST_STEPS):
        product = a * g
        epsilon = (p_square - product) / (p_square + product)
        root_p = (p_square + product) / (2 * root_p)
        p_square = root_p * root_p
        q = q * epsilon / 2
        total = total + q
        a, g = (a + g) / 2, np.sqrt(product)
        # not(≤) rather than >: a NaN argument ends the loop.
        if not np.any(~(abs(a - g) <= _TOLERANCE * a) | ~(abs(q) <= _TOLERANCE * abs(total))):
            break
    mean = (a + g) / 2
    k = np.where(infinite, np.inf, (_PI / (2 * mean)).astype(float))
    rj = np.where(infinite, np.inf, (3 * _PI * total / (4 * mean * p)).astype(float))
    return k.reshape(shape), rj.reshape(shape)
