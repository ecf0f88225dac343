"""sim/bch.py: Engø's closed-form BCH formula against log(exp(x) exp(y)) and the BCH series."""

import mpmath
import numpy as np
from hypothesis import given, settings

from spinlab.sim.bch import bch_so3
from spinlab.sim.so3 import exp_so3, log_so3, vee
from tests.sim.conftest import rotation_vectors, sweep_vectors

ATOL_RAD = 1e-13


def test_matches_log_of_the_product_for_random_rotations():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(2, 2000, 3))
    z = bch_so3(x, y)
    expected = log_so3(exp_so3(x) @ exp_so3(y))
    # Engø's form is singular at |z| = π, where the axis is carried by a vanishing skew part.
    clear_of_pi = np.linalg.norm(expected, axis=-1) < np.pi - 1e-2
    assert clear_of_pi.mean() > 0.95
    np.testing.assert_allclose(z[clear_of_pi], expected[clear_of_pi], atol=ATOL_RAD)
    np.testing.assert_allclose(exp_so3(z), exp_so3(x) @ exp_so3(y), atol=1e-11)


@settings(max_examples=200, deadline=None)
@given(rotation_vectors, rotation_vectors)
def test_the_product_rotation_is_reproduced_for_any_angles(x, y):
    z = bch_so3(x, y)
    assert np.linalg.norm(z) <= np.pi + 1e-12
    expected = exp_so3(x) @ exp_so3(y)
    sin_z = np.linalg.norm(vee(expected))
    # Accurate to rounding, degraded near |z| = π only by the conditioning 1/sin|z| of the axis.
    np.testing.assert_allclose(exp_so3(z), expected, atol=1e-13 + 1e-15 / max(sin_z, 1e-300))


def test_small_arguments_follow_the_series():
    """z = x + y + ½ x×y + (1/12)(x×(x×y) + y×(y×x)) + O(5th order)."""
    rng = np.random.default_rng(2)
    for scale in (1e-2, 1e-4, 1e-8):
        x, y = scale * rng.normal(size=(2, 50, 3))
        series = x + y + 0.5 * np.cross(x, y) + (np.cross(x, np.cross(x, y)) + np.cross(y, np.cross(y, x))) / 12.0
        np.testing.assert_allclose(bch_so3(x, y), series, atol=10 * scale**4 + 1e-16 * scale)


def test_zero_and_parallel_arguments():
    v = sweep_vectors(3)
    np.testing.assert_allclose(bch_so3(np.zeros(3), v), v, atol=1e-16, rtol=1e-15)
    np.testing.assert_allclose(bch_so3(v, np.zeros(3)), v, atol=1e-16, rtol=1e-15)
    axis = np.array([2.0, -1.0, 2.0]) / 3.0
    np.testing.assert_allclose(bch_so3(0.4 * axis, 1.3 * axis), 1.7 * axis, atol=1e-15)
    np.testing.assert_allclose(bch_so3(1.0 * axis, -1.0 * axis), 0.0, atol=1e-16)


def test_skew_part_is_engo_a_b_c():
    """The unsimplified formula of seed 004 (with divisions) agrees where it is defined."""
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(2, 100, 3))
    nx, ny = np.linalg.norm(x, axis=-1), np.linalg.norm(y, axis=-1)
    ux, uy = x / nx[:, None], y / ny[:, None]
    cos_xy = np.sum(ux * uy, axis=-1)
    a = np.sin(nx) * np.cos(ny / 2) ** 2 - np.sin(ny) * np.sin(nx / 2) ** 2 * cos_xy
    b = np.sin(ny) * np.cos(nx / 2) ** 2 - np.sin(nx) * np.sin(ny / 2) ** 2 * cos_xy
    c = 0.5 * np.sin(nx) * np.sin(ny) - 2 * np.sin(nx / 2) ** 2 * np.sin(ny / 2) ** 2 * cos_xy
    skew = a[:, None] * ux + b[:, None] * uy + c[:, None] * np.cross(ux, uy)
    R = exp_so3(x) @ exp_so3(y)
    np.testing.assert_allclose(skew, vee(R), atol=1e-14)
    z = bch_so3(x, y)
    angle = np.linalg.norm(z, axis=-1)
    np.testing.assert_allclose(np.sin(angle)[:, None] * z / angle[:, None], skew, atol=1e-13)


def _log_of_product_mp(x, y):
    """log(exp(x) exp(y)) in 40-digit arithmetic, by quaternions (the reference near π)."""
    mpmath.mp.dps = 40

    def quaternion(v):
        v = [mpmath.mpf(float(c)) for c in v]
        angle = mpmath.sqrt(sum(c * c for c in v))
        return [mpmath.cos(angle / 2)] + [mpmath.sin(angle / 2) * c / angle for c in v]

    (w1, *u1), (w2, *u2) = quaternion(x), quaternion(y)
    w = w1 * w2 - sum(a * b for a, b in zip(u1, u2, strict=True))
    u = [w1 * b + w2 * a for a, b in zip(u1, u2, strict=True)]
    u = [
        u[0] + u1[1] * u2[2] - u1[2] * u2[1],
        u[1] + u1[2] * u2[0] - u1[0] * u2[2],
        u[2] + u1[0] * u2[1] - u1[1] * u2[0],
    ]
    if w < 0:
        w, u = -w, [-c for c in u]
    s = mpmath.sqrt(sum(c * c for c in u))
    return np.array([float(2 * mpmath.atan2(s, w) * c / s) for c in u])


def test_products_near_a_half_turn_keep_their_direction():
    # Engø's skew part shrinks like sin|z| as |z| → π, and its direction with it; the quaternion product's vector
    # part does not (it was 1.6e-3 relative at π − 1e-12).
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(100):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        target = axis * (np.pi - 10.0 ** rng.uniform(-13, -3))
        x = rng.normal(size=3)
        x *= rng.uniform(0.1, 3.0) / np.linalg.norm(x)
        y = log_so3(exp_so3(-x) @ exp_so3(target))
        reference = _log_of_product_mp(x, y)
        worst = max(worst, np.linalg.norm(bch_so3(x, y) - reference) / np.linalg.norm(reference))
    assert worst < 4 * np.finfo(float).eps, worst
