"""The complete K(m) and R_J(0, m₁, 1, p) by the arithmetic-geometric mean (sim/complete_elliptic.py) against mpmath
and against sim/carlson.py's duplication."""

import mpmath
import numpy as np
import pytest

from spinlab.sim.carlson import EXTENDED, carlson_rj, complete_k_from_complement
from spinlab.sim.complete_elliptic import complete_k_and_rj

# As tests/sim/test_carlson.py: the wide steps' error is ~1e-2 ulp, the rounding to float64 adds at most ½ ulp.
MAX_ULPS = 1.0
NEEDS_EXTENDED = pytest.mark.skipif(not EXTENDED, reason="no extended longdouble here: scipy's integrals are used")


def _sample():
    rng = np.random.default_rng(39)
    m1 = np.concatenate([10.0 ** rng.uniform(-323.5, 0.0, 60), rng.uniform(0.0, 1.0, 20), [5e-324, 1e-100, 1.0]])
    # p = 1 − n of the closed forms (n < 0 down to the transformed rows' −64 and past), and p < 1 for the formula's
    # other side.
    p = np.concatenate([1.0 + 10.0 ** rng.uniform(-6.0, 3.0, 70), 10.0 ** rng.uniform(-3.0, 0.0, 13)])
    return m1, p


def _ulps(value: float, reference) -> float:
    return float(abs(mpmath.mpf(value) - reference) / mpmath.mpf(float(np.spacing(abs(float(reference))))))


@NEEDS_EXTENDED
def test_complete_integrals_are_mpmath_s_to_an_ulp():
    m1, p = _sample()
    k, rj = complete_k_and_rj(m1, p)
    worst = 0.0
    with mpmath.workdps(60):
        for row in range(len(m1)):
            m, q = mpmath.mpf(float(m1[row])), mpmath.mpf(float(p[row]))
            worst = max(worst, _ulps(k[row], mpmath.elliprf(0, m, 1)), _ulps(rj[row], mpmath.elliprj(0, m, 1, q)))
    assert worst <= MAX_ULPS


def test_the_duplication_s_doubles_but_at_a_midpoint():
    m1, p = _sample()
    k, rj = complete_k_and_rj(m1, p)
    # Both within an ulp of the integral: equal, or one rounding either side of a midpoint.
    for ours, theirs in ((k, complete_k_from_complement(m1)), (rj, carlson_rj(0.0, m1, 1.0, p))):
        assert np.all(np.abs(ours - theirs) <= np.spacing(theirs))
        assert np.count_nonzero(ours != theirs) <= len(m1) // 20


def test_shapes_broadcast_and_zero_gives_inf():
    k, rj = complete_k_and_rj(np.array([[0.0], [0.25]]), np.array([1.5, 3.0]))
    assert k.shape == rj.shape == (2, 2)
    assert np.all(np.isinf(k[0])) and np.all(np.isinf(rj[0])) and np.all(np.isfinite(k[1]))
    assert k[1, 0] == k[1, 1]
