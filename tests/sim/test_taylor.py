"""The SO(3) coefficients against 50-digit references (mpmath), across both branches."""

import mpmath
import numpy as np
import pytest

from spinlab.sim.taylor import TAYLOR_BRANCH_ANGLE_SQ, left_jacobian_inv_coefficient, rodrigues_coefficients
from tests.sim.conftest import ANGLE_SWEEP, coefficient_rtol


@mpmath.workdps(50)
def _reference(angle: float) -> tuple[float, float, float, float]:
    a = mpmath.mpf(angle)
    if a == 0:
        return 1.0, 0.5, 1.0 / 6.0, 1.0 / 12.0
    s1 = mpmath.sin(a) / a
    s2 = (1 - mpmath.cos(a)) / a**2
    s3 = (a - mpmath.sin(a)) / a**3
    c = (1 - (a / 2) * mpmath.cot(a / 2)) / a**2
    return float(s1), float(s2), float(s3), float(c)


ANGLES = np.concatenate([ANGLE_SWEEP, np.linspace(0.0, 3.1, 157), [np.sqrt(TAYLOR_BRANCH_ANGLE_SQ) * (1 - 1e-15)]])


@pytest.mark.parametrize("index", range(4))
def test_coefficients_match_high_precision(index):
    expected = np.array([_reference(a)[index] for a in ANGLES])
    s1, s2, s3 = rodrigues_coefficients(ANGLES**2)
    got = (s1, s2, s3, left_jacobian_inv_coefficient(ANGLES**2))[index]
    rtol = coefficient_rtol(ANGLES**2, ("s1", "s2", "s3", "c")[index])
    relative_error = np.abs(got - expected) / np.abs(expected)
    assert np.all(relative_error <= rtol), ANGLES[np.argmax(relative_error / rtol)]


def test_coefficients_at_zero_are_the_limits():
    s1, s2, s3 = rodrigues_coefficients(np.zeros(2))
    assert np.all(s1 == 1.0) and np.all(s2 == 0.5)
    np.testing.assert_allclose(s3, 1.0 / 6.0, rtol=1e-16)
    np.testing.assert_allclose(left_jacobian_inv_coefficient(np.zeros(2)), 1.0 / 12.0, rtol=1e-16)


def test_shapes_broadcast():
    angle_sq = np.random.default_rng(3).uniform(0.0, 4.0, size=(2, 3, 5))
    for coefficient in (*rodrigues_coefficients(angle_sq), left_jacobian_inv_coefficient(angle_sq)):
        assert coefficient.shape == (2, 3, 5)
